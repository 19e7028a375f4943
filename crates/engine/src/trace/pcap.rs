//! The packet trace: the packets one port transmits, as IPv4/TCP (or UDP) packets in a pcap file
//! (nanosecond timestamps in simulated time, link type RAW IPv4), written with the `pcap-file` crate.
//!
//! Addresses (`docs/traces.md`): TCP flow slot `s` of group `g` runs from `10.g.(s>>8 & 255).(s & 255)`,
//! port `1024 + (s >> 16)`, to `172.16.g.1` port 5001 (`g` modulo 256); UDP source `i` from
//! `192.168.(i>>8 & 255).(i & 255)` port 10000 to `172.31.255.1` port 9. Byte sequence numbers are
//! `1 + segment × payload` (ISN 0), ACK numbers likewise; the receiver's own sequence number stays 1.
//!
//! Captures are written in time order: a data packet when the port ends its transmission, an ACK that
//! returns over the uncongested path when it passes the port's router (a known delay after the receiver
//! sent it), so a small heap orders the captures due later than the simulation's clock.

use super::spec::PcapConfig;
use crate::packet::{Ack, Ecn, MAX_SACK_BLOCKS};
use crate::spec::ScenarioError;
use crate::time::Time;
use pcap_file::pcap::{PcapHeader, PcapPacket, PcapWriter};
use pcap_file::{DataLink, Endianness, TsResolution};
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fs::File;
use std::io::BufWriter;

/// A TCP flow's header geometry: wire size of a full segment and the payload of one.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TcpShape {
    pub group: u32,
    pub packet_size: u32,
    pub payload: u32,
    pub ack_size: u32,
}

/// One packet to write.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Capture {
    Data {
        flow: u32,
        shape: TcpShape,
        seq: u32,
        ecn: Ecn,
        cwr: bool,
    },
    /// The SYN opening a connection (`tcp.handshake`); the receiver's SYN-ACK is an `Ack` with `syn`.
    Syn {
        flow: u32,
        shape: TcpShape,
    },
    Ack {
        flow: u32,
        shape: TcpShape,
        ack: Ack,
    },
    Datagram {
        source: u32,
        size: u32,
        serial: u32,
    },
}

#[derive(Debug)]
struct Pending {
    at: Time,
    serial: u64,
    what: Capture,
}

impl PartialEq for Pending {
    fn eq(&self, o: &Self) -> bool {
        (self.at, self.serial) == (o.at, o.serial)
    }
}
impl Eq for Pending {}
impl PartialOrd for Pending {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Pending {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        (self.at, self.serial).cmp(&(o.at, o.serial))
    }
}

/// The pcap file being written (as `PATH.part`, renamed to `PATH` when the run ends; removed if the run
/// is dropped unfinished).
pub struct PcapSink {
    pub cfg: PcapConfig,
    part: String,
    writer: Option<PcapWriter<BufWriter<File>>>,
    heap: BinaryHeap<Reverse<Pending>>,
    serial: u64,
    buf: Vec<u8>,
    pub packets: u64,
    pub bytes: u64,
    pub over_cap: u64,
    pub error: Option<String>,
    done: bool,
}

const PCAP_HEADER_BYTES: u64 = 24;
const RECORD_HEADER_BYTES: u64 = 16;
/// Largest TCP header (data offset 15 words).
const MAX_TCP_HEADER: u32 = 60;

impl PcapSink {
    /// Open `cfg.path`'s `.part` file and write the header. A path that exists and is not a regular file
    /// (a directory, a device such as `/dev/full`) is refused: the finished trace replaces the path by a
    /// rename, which would fail at the end of the run or replace the device.
    pub fn create(cfg: &PcapConfig) -> Result<Self, ScenarioError> {
        if let Ok(meta) = std::fs::metadata(&cfg.path) {
            if !meta.is_file() {
                let what = if meta.is_dir() { "a directory" } else { "not a regular file" };
                return Err(ScenarioError {
                    field: "trace.pcap".into(),
                    message: format!("{} is {what}; give the path of a file to write", cfg.path),
                });
            }
        }
        let part = format!("{}.part", cfg.path);
        let file = File::create(&part).map_err(|e| ScenarioError {
            field: "trace.pcap".into(),
            message: format!("cannot create {}: {e}", cfg.path),
        })?;
        let header = PcapHeader {
            version_major: 2,
            version_minor: 4,
            ts_correction: 0,
            ts_accuracy: 0,
            snaplen: cfg.snaplen,
            datalink: DataLink::IPV4,
            ts_resolution: TsResolution::NanoSecond,
            endianness: Endianness::Little,
        };
        let writer =
            PcapWriter::with_header(BufWriter::with_capacity(1 << 16, file), header).map_err(|e| {
                let _ = std::fs::remove_file(&part);
                ScenarioError {
                    field: "trace.pcap".into(),
                    message: format!("cannot write {}: {e}", cfg.path),
                }
            })?;
        Ok(PcapSink {
            cfg: cfg.clone(),
            part,
            writer: Some(writer),
            heap: BinaryHeap::new(),
            serial: 0,
            buf: Vec::with_capacity(128),
            packets: 0,
            bytes: PCAP_HEADER_BYTES,
            over_cap: 0,
            error: None,
            done: false,
        })
    }

    pub fn path(&self) -> &str {
        &self.cfg.path
    }

    /// A capture at `at` (never earlier than `now`, the simulation's clock); writes every capture due by
    /// `now`.
    pub fn capture(&mut self, now: Time, at: Time, what: Capture) {
        if at < self.cfg.start || at > self.cfg.stop {
            return;
        }
        self.serial += 1;
        self.heap.push(Reverse(Pending { at, serial: self.serial, what }));
        self.flush(now);
    }

    /// Write the captures due by `t`.
    pub fn flush(&mut self, t: Time) {
        while self.heap.peek().is_some_and(|p| p.0.at <= t) {
            let Reverse(p) = self.heap.pop().expect("peeked");
            self.write(p.at, &p.what);
        }
    }

    fn write(&mut self, at: Time, what: &Capture) {
        let wire = encode(what, &mut self.buf);
        let caplen = (self.buf.len() as u32).min(self.cfg.snaplen);
        let record = RECORD_HEADER_BYTES + caplen as u64;
        if self.packets >= self.cfg.max_packets || self.bytes + record > self.cfg.max_bytes {
            self.over_cap += 1;
            return;
        }
        let Some(w) = self.writer.as_mut() else { return };
        let ts = std::time::Duration::from_nanos(at / 1000);
        if let Err(e) = w.write_packet(&PcapPacket::new(ts, wire, &self.buf[..caplen as usize])) {
            self.error = Some(format!("cannot write {}: {e}", self.cfg.path));
            self.writer = None;
            return;
        }
        self.packets += 1;
        self.bytes += record;
    }

    /// Write every capture due by `end`, close the file and give it its name.
    pub fn finish(&mut self, end: Time) {
        if self.done {
            return;
        }
        self.flush(end);
        self.heap.clear();
        self.done = true;
        if let Some(w) = self.writer.take() {
            use std::io::Write;
            let mut inner = w.into_writer();
            let renamed = inner
                .flush()
                .and_then(|_| inner.get_ref().sync_all())
                .and_then(|_| std::fs::rename(&self.part, &self.cfg.path));
            if let Err(e) = renamed {
                self.error.get_or_insert(format!("cannot write {}: {e}", self.cfg.path));
            }
        }
        if self.error.is_some() {
            let _ = std::fs::remove_file(&self.part);
        }
    }
}

impl Drop for PcapSink {
    fn drop(&mut self) {
        if !self.done {
            self.writer = None;
            let _ = std::fs::remove_file(&self.part);
        }
    }
}

fn group_byte(group: u32) -> u8 {
    (group % 256) as u8
}

/// The sender's address and port of TCP flow slot `s` in group `g`.
pub fn sender_endpoint(s: u32, g: u32) -> ([u8; 4], u16) {
    ([10, group_byte(g), (s >> 8) as u8, s as u8], 1024 + (s >> 16) as u16)
}

/// The receiver's address and port of group `g`.
pub fn receiver_endpoint(g: u32) -> ([u8; 4], u16) {
    ([172, 16, group_byte(g), 1], 5001)
}

/// Bytes of TCP header and payload of a full segment of `shape`: the header is the wire size's rest
/// after IPv4 (20) and the payload, held to [20, 60] bytes in whole words; the payload follows from it.
fn segment_geometry(shape: &TcpShape) -> (u32, u32) {
    let rest = shape.packet_size.saturating_sub(shape.payload).saturating_sub(20);
    let tcp = (rest / 4 * 4).clamp(20, MAX_TCP_HEADER);
    let payload = shape.packet_size.saturating_sub(20 + tcp);
    (tcp, payload)
}

fn checksum_add(mut sum: u32, bytes: &[u8]) -> u32 {
    for pair in bytes.chunks(2) {
        let word =
            if pair.len() == 2 { u16::from_be_bytes([pair[0], pair[1]]) } else { (pair[0] as u16) << 8 };
        sum += word as u32;
    }
    sum
}

fn checksum_fold(mut sum: u32) -> u16 {
    while sum >> 16 != 0 {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    !(sum as u16)
}

fn ipv4_header(buf: &mut Vec<u8>, total: u32, tos: u8, proto: u8, id: u16, src: [u8; 4], dst: [u8; 4]) {
    let start = buf.len();
    buf.extend_from_slice(&[0x45, tos]);
    buf.extend_from_slice(&(total.min(65535) as u16).to_be_bytes());
    buf.extend_from_slice(&id.to_be_bytes());
    buf.extend_from_slice(&[0x40, 0x00, 64, proto, 0, 0]);
    buf.extend_from_slice(&src);
    buf.extend_from_slice(&dst);
    let sum = checksum_fold(checksum_add(0, &buf[start..start + 20]));
    buf[start + 10..start + 12].copy_from_slice(&sum.to_be_bytes());
}

/// The transport checksum over the pseudo-header and the segment, whose bytes past `buf[at..]` are zeros
/// up to `len` (zeros add nothing to the sum).
fn transport_checksum(buf: &mut [u8], at: usize, len: u32, proto: u8, offset: usize) {
    let mut pseudo = [0u8; 12];
    pseudo[..4].copy_from_slice(&buf[12..16]);
    pseudo[4..8].copy_from_slice(&buf[16..20]);
    pseudo[9] = proto;
    pseudo[10..12].copy_from_slice(&(len.min(65535) as u16).to_be_bytes());
    let sum = checksum_add(checksum_add(0, &pseudo), &buf[at..]);
    let mut c = checksum_fold(sum);
    if proto == 17 && c == 0 {
        c = 0xffff;
    }
    buf[at + offset..at + offset + 2].copy_from_slice(&c.to_be_bytes());
}

const ECT0: u8 = 0b10;
const CE: u8 = 0b11;
const FLAG_SYN: u8 = 0x02;
const FLAG_ACK: u8 = 0x10;
const FLAG_PSH: u8 = 0x08;
const FLAG_ECE: u8 = 0x40;
const FLAG_CWR: u8 = 0x80;

#[allow(clippy::too_many_arguments)]
fn tcp_header(
    buf: &mut Vec<u8>,
    src: u16,
    dst: u16,
    seq: u32,
    ack: u32,
    header: u32,
    flags: u8,
    options: &[u8],
) {
    buf.extend_from_slice(&src.to_be_bytes());
    buf.extend_from_slice(&dst.to_be_bytes());
    buf.extend_from_slice(&seq.to_be_bytes());
    buf.extend_from_slice(&ack.to_be_bytes());
    buf.extend_from_slice(&[((header / 4) as u8) << 4, flags]);
    buf.extend_from_slice(&65535u16.to_be_bytes());
    buf.extend_from_slice(&[0, 0, 0, 0]);
    buf.extend_from_slice(options);
    // Pad with NOPs to the header length.
    buf.resize(buf.len() + (header as usize - 20 - options.len()), 1);
}

/// Byte sequence number of segment `seg` (ISN 0).
fn byte_seq(seg: u32, payload: u32) -> u32 {
    1u32.wrapping_add(seg.wrapping_mul(payload))
}

/// Encode `what` into `buf` (headers, then the payload as zeros); returns the packet's true length.
pub fn encode(what: &Capture, buf: &mut Vec<u8>) -> u32 {
    buf.clear();
    match *what {
        Capture::Data { flow, shape, seq, ecn, cwr } => {
            let (tcp, payload) = segment_geometry(&shape);
            let total = 20 + tcp + payload;
            let tos = match ecn {
                Ecn::NotEct => 0,
                Ecn::Ect => ECT0,
                Ecn::Ce => CE,
            };
            let (src, sport) = sender_endpoint(flow, shape.group);
            let (dst, dport) = receiver_endpoint(shape.group);
            ipv4_header(buf, total, tos, 6, seq as u16, src, dst);
            let flags = FLAG_ACK | FLAG_PSH | if cwr { FLAG_CWR } else { 0 };
            tcp_header(buf, sport, dport, byte_seq(seq, payload), 1, tcp, flags, &[]);
            transport_checksum(buf, 20, tcp + payload, 6, 16);
            buf.resize(total.min(65535) as usize, 0);
            total
        }
        Capture::Syn { flow, shape } => {
            let (tcp, _) = segment_geometry(&shape);
            let total = 20 + tcp;
            let (src, sport) = sender_endpoint(flow, shape.group);
            let (dst, dport) = receiver_endpoint(shape.group);
            ipv4_header(buf, total, 0, 6, 0, src, dst);
            tcp_header(buf, sport, dport, 0, 0, tcp, FLAG_SYN, &[]);
            transport_checksum(buf, 20, tcp, 6, 16);
            total
        }
        Capture::Ack { flow, shape, ack } => {
            let (_, payload) = segment_geometry(&shape);
            let mut options = [0u8; 4 + 8 * MAX_SACK_BLOCKS];
            let blocks = ack.sack_blocks();
            let olen = if blocks.is_empty() {
                0
            } else {
                options[..4].copy_from_slice(&[1, 1, 5, 2 + 8 * blocks.len() as u8]);
                for (i, &(a, b)) in blocks.iter().enumerate() {
                    options[4 + 8 * i..8 + 8 * i].copy_from_slice(&byte_seq(a, payload).to_be_bytes());
                    options[8 + 8 * i..12 + 8 * i].copy_from_slice(&byte_seq(b, payload).to_be_bytes());
                }
                4 + 8 * blocks.len()
            };
            let tcp = 20 + olen as u32;
            // The ACK's modelled size, or more when its options do not fit in it.
            let total = shape.ack_size.max(20 + tcp);
            let (src, sport) = receiver_endpoint(shape.group);
            let (dst, dport) = sender_endpoint(flow, shape.group);
            ipv4_header(buf, total, 0, 6, ack.ack as u16, src, dst);
            let flags = FLAG_ACK | if ack.ece { FLAG_ECE } else { 0 } | if ack.syn { FLAG_SYN } else { 0 };
            // The SYN-ACK carries the receiver's ISN (0) and acknowledges the SYN; later ACKs follow both.
            let (seq, acked) = if ack.syn { (0, 1) } else { (1, byte_seq(ack.ack, payload)) };
            tcp_header(buf, sport, dport, seq, acked, tcp, flags, &options[..olen]);
            transport_checksum(buf, 20, total - 20, 6, 16);
            buf.resize(total as usize, 0);
            total
        }
        Capture::Datagram { source, size, serial } => {
            let total = size.max(28);
            let src = [192, 168, (source >> 8) as u8, source as u8];
            ipv4_header(buf, total, 0, 17, serial as u16, src, [172, 31, 255, 1]);
            buf.extend_from_slice(&10000u16.to_be_bytes());
            buf.extend_from_slice(&9u16.to_be_bytes());
            buf.extend_from_slice(&((total - 20).min(65535) as u16).to_be_bytes());
            buf.extend_from_slice(&[0, 0]);
            transport_checksum(buf, 20, total - 20, 17, 6);
            buf.resize(total.min(65535) as usize, 0);
            total
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape() -> TcpShape {
        TcpShape { group: 2, packet_size: 1000, payload: 960, ack_size: 40 }
    }

    fn sum_ok(bytes: &[u8]) -> bool {
        checksum_fold(checksum_add(0, bytes)) == 0
    }

    #[test]
    fn data_segment_headers() {
        let mut buf = Vec::new();
        let len =
            encode(&Capture::Data { flow: 300, shape: shape(), seq: 5, ecn: Ecn::Ce, cwr: true }, &mut buf);
        assert_eq!((len, buf.len()), (1000, 1000));
        assert_eq!(&buf[..2], &[0x45, CE]);
        assert_eq!(u16::from_be_bytes([buf[2], buf[3]]), 1000);
        assert_eq!(&buf[12..20], &[10, 2, 1, 44, 172, 16, 2, 1]);
        assert!(sum_ok(&buf[..20]), "IPv4 header checksum");
        assert_eq!(u32::from_be_bytes(buf[24..28].try_into().unwrap()), 1 + 5 * 960);
        assert_eq!(buf[33], FLAG_ACK | FLAG_PSH | FLAG_CWR);
        let mut pseudo = vec![10, 2, 1, 44, 172, 16, 2, 1, 0, 6];
        pseudo.extend_from_slice(&980u16.to_be_bytes());
        pseudo.extend_from_slice(&buf[20..]);
        assert!(sum_ok(&pseudo), "TCP checksum over the pseudo-header");
    }

    #[test]
    fn sack_ack_headers() {
        let mut ack = Ack { ack: 3, ece: true, sack_len: 2, ..Default::default() };
        ack.sack[0] = (5, 7);
        ack.sack[1] = (9, 10);
        let mut buf = Vec::new();
        let len = encode(&Capture::Ack { flow: 1, shape: shape(), ack }, &mut buf);
        assert_eq!(len, 20 + 20 + 4 + 16);
        assert_eq!(buf[32] >> 4, 10, "data offset: 40 bytes of header");
        assert_eq!(buf[33], FLAG_ACK | FLAG_ECE);
        assert_eq!(
            (u16::from_be_bytes([buf[20], buf[21]]), u16::from_be_bytes([buf[22], buf[23]])),
            (5001, 1024)
        );
        assert_eq!(&buf[40..44], &[1, 1, 5, 18]);
        assert_eq!(u32::from_be_bytes(buf[44..48].try_into().unwrap()), 1 + 5 * 960);
        assert!(sum_ok(&buf[..20]));
        let mut pseudo = buf[12..20].to_vec();
        pseudo.extend_from_slice(&[0, 6, 0, 40]);
        pseudo.extend_from_slice(&buf[20..]);
        assert!(sum_ok(&pseudo));
    }

    #[test]
    fn syn_and_syn_ack_headers() {
        let mut buf = Vec::new();
        let len = encode(&Capture::Syn { flow: 1, shape: shape() }, &mut buf);
        assert_eq!((len, buf.len()), (40, 40));
        assert_eq!(buf[33], FLAG_SYN);
        assert_eq!(u32::from_be_bytes(buf[24..28].try_into().unwrap()), 0, "the ISN");
        assert!(sum_ok(&buf[..20]));
        let mut pseudo = buf[12..20].to_vec();
        pseudo.extend_from_slice(&[0, 6, 0, 20]);
        pseudo.extend_from_slice(&buf[20..]);
        assert!(sum_ok(&pseudo));
        let ack = Ack { syn: true, ..Default::default() };
        encode(&Capture::Ack { flow: 1, shape: shape(), ack }, &mut buf);
        assert_eq!(buf[33], FLAG_SYN | FLAG_ACK);
        assert_eq!(u32::from_be_bytes(buf[24..28].try_into().unwrap()), 0);
        assert_eq!(u32::from_be_bytes(buf[28..32].try_into().unwrap()), 1, "acknowledges the SYN");
    }

    #[test]
    fn odd_header_sizes_keep_lengths_consistent() {
        let s = TcpShape { group: 0, packet_size: 1500, payload: 1448, ack_size: 40 };
        assert_eq!(segment_geometry(&s), (32, 1448));
        let s = TcpShape { group: 0, packet_size: 100, payload: 99, ack_size: 40 };
        assert_eq!(segment_geometry(&s), (20, 60));
    }
}

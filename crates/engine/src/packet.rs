//! Packets and ACKs. Both are small `Copy` values that live inside pipes and queues (ring buffers that reach
//! their working size and stay there), so the steady state allocates nothing per packet.

use crate::time::Time;

/// The ECN field of the IP header (RFC 3168).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Ecn {
    #[default]
    NotEct,
    Ect,
    Ce,
}

/// What a packet carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Kind {
    /// A TCP data segment (`seq` counts whole segments).
    #[default]
    Data,
    /// A TCP ACK crossing queued links; `seq` numbers the flow's ACKs so the sender can find its contents.
    Ack,
    /// An open-loop datagram.
    Datagram,
}

/// A packet in the network. `flow` indexes the flow slot (TCP) or, for datagrams, the source.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct Packet {
    pub flow: u32,
    pub seq: u32,
    /// Size on the wire, bytes.
    pub size: u32,
    pub ecn: Ecn,
    /// The sender set CWR (RFC 3168 §6.1.2): it has reduced its window.
    pub cwr: bool,
    /// A retransmission (for statistics only; receivers cannot tell).
    pub retransmit: bool,
    /// A SYN opening the connection (`tcp.handshake`): no payload, answered by a SYN-ACK.
    pub syn: bool,
    pub kind: Kind,
    /// The next port on the packet's route (an index into its route).
    pub hop: u8,
    /// The number of ports on its route (set when it enters the network).
    pub hops: u8,
    /// What the sender's congestion controller wrote on it (the index policy's Whittle index).
    pub tag: f32,
    /// When the packet entered its current queue; on a link, when it reaches the far end ([`crate::network::pipe`]).
    pub enqueued_at: Time,
}

/// Most SACK blocks an ACK carries: four, all that 40 bytes of TCP options hold (RFC 2018 §3; three when
/// timestamps also take their 12 bytes, which the engine does not model; ns-3 3.44 fills what is free).
pub const MAX_SACK_BLOCKS: usize = 4;

/// A cumulative ACK with SACK blocks `[start, end)` and the ECE flag.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Ack {
    /// Next segment expected (everything below was received).
    pub ack: u32,
    pub ece: bool,
    /// The SYN-ACK answering a SYN (`tcp.handshake`); it acknowledges no data.
    pub syn: bool,
    pub sack_len: u8,
    pub sack: [(u32, u32); MAX_SACK_BLOCKS],
}

impl Ack {
    pub fn sack_blocks(&self) -> &[(u32, u32)] {
        &self.sack[..self.sack_len as usize]
    }

    /// Bytes its SACK option adds to the ACK on the wire ([`sack_option_bytes`]).
    pub fn sack_option_bytes(&self) -> u32 {
        sack_option_bytes(self.sack_len as usize)
    }
}

/// Bytes a SACK option of `blocks` blocks adds to an ACK: 2 + 8 per block (RFC 2018 §3), padded to a 32-bit
/// boundary as TCP options are (ns-3 and Linux pad with NOPs); none without blocks.
pub fn sack_option_bytes(blocks: usize) -> u32 {
    if blocks == 0 {
        0
    } else {
        (2 + 8 * blocks as u32).div_ceil(4) * 4
    }
}

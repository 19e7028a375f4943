//! NewReno's window growth (RFC 5681 §3.1, as ns-3's `TcpNewReno`): slow start adds one segment per ACK
//! that acknowledges new data, congestion avoidance adds 1/cwnd per such ACK. Growth is per ACK, not per
//! segment acknowledged (no Appropriate Byte Counting), so delayed ACKs halve it, as in ns-3.
//! Loss recovery itself (RFC 6582 / RFC 6675) lives in the sender's state machine.

use super::{CongestionControl, Window};

#[derive(Clone, Debug, Default)]
pub struct NewReno;

impl CongestionControl for NewReno {
    fn on_ack(&mut self, w: &mut Window, acked: u32) {
        if acked == 0 {
            return;
        }
        if w.cwnd < w.ssthresh {
            w.cwnd += 1.0;
        } else {
            w.cwnd += 1.0 / w.cwnd;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slow_start_then_linear_growth() {
        let mut cc = NewReno;
        let mut w = Window { cwnd: 1.0, ssthresh: 4.0 };
        for _ in 0..3 {
            cc.on_ack(&mut w, 1);
        }
        assert_eq!(w.cwnd, 4.0);
        for _ in 0..4 {
            cc.on_ack(&mut w, 2);
        }
        assert!((w.cwnd - 4.0).abs() < 1.0 + 1e-9 && w.cwnd > 4.9);
        assert_eq!(cc.ssthresh_after_congestion(&w, 11), 5.5);
        assert_eq!(cc.ssthresh_after_congestion(&w, 3), 2.0);
    }
}

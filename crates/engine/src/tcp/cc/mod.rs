//! Congestion control as a trait: the TCP state machine in [`crate::tcp::sender`] never names a variant.
//! Hooks have defaults, so a variant overrides only what it changes; [`AnyCc`] dispatches statically.

pub mod newreno;

pub use newreno::NewReno;

/// The congestion window state a controller may change, in segments.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Window {
    pub cwnd: f64,
    pub ssthresh: f64,
}

pub trait CongestionControl {
    /// New data was cumulatively acknowledged outside loss recovery: one call per ACK, `acked` segments.
    fn on_ack(&mut self, w: &mut Window, acked: u32);

    /// The slow-start threshold after a congestion signal (loss or ECN-Echo) with `flight` segments out.
    /// RFC 5681 eq. (4): max(FlightSize / 2, 2).
    fn ssthresh_after_congestion(&self, _w: &Window, flight: u32) -> f64 {
        (flight as f64 / 2.0).max(2.0)
    }

    /// The window after a retransmission timeout (RFC 5681: the loss window, one segment).
    fn loss_window(&self) -> f64 {
        1.0
    }
}

/// The congestion controllers a scenario can name.
#[derive(Clone, Debug)]
pub enum AnyCc {
    NewReno(NewReno),
}

impl CongestionControl for AnyCc {
    fn on_ack(&mut self, w: &mut Window, acked: u32) {
        match self {
            AnyCc::NewReno(c) => c.on_ack(w, acked),
        }
    }
    fn ssthresh_after_congestion(&self, w: &Window, flight: u32) -> f64 {
        match self {
            AnyCc::NewReno(c) => c.ssthresh_after_congestion(w, flight),
        }
    }
    fn loss_window(&self) -> f64 {
        match self {
            AnyCc::NewReno(c) => c.loss_window(),
        }
    }
}

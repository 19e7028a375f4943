//! The network's moving parts: ports (a queue discipline, its link's transmitter and statistics) and pipes
//! (pure delay, FIFO). A route is a list of ports; a packet carries its position on its route (`hop`).
//!
//! Cost model: a queued hop costs two events (the packet's arrival at the port, the end of its
//! serialization); a pipe costs none beyond its head's arrival, since packets enter a pipe in the order
//! they leave it, and only the head has an event pending.

pub mod pipe;
pub mod port;
pub mod shared_buffer;

pub use pipe::Pipe;
pub use port::Port;

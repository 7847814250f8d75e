//! The discrete-event core: integer nanosecond time, the event queue and seeded random streams.

mod event_pool;
pub mod events;
mod radix_heap;
pub mod rng;
pub mod time;

pub use events::EventQueue;
pub use rng::{stream, Rng};
pub use time::{Time, NS_PER_SEC};

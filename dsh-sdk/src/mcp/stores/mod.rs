//! The state a server's replicas share: the [`EventBus`](bus::EventBus)
//! that carries what sessions hear (`bus`), what the HTTP layer and a shared
//! store tell each other about a request when the store is unreachable
//! (`outage`), and, with the `redis` feature, the Redis stores of tasks,
//! events and sessions (`redis`). The file task store is with the tasks
//! (`tasks::store`).

pub(crate) mod bus;
pub(crate) mod outage;
#[cfg(feature = "redis")]
pub mod redis;

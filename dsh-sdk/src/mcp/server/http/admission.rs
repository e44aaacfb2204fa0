//! Which MCP sessions of the HTTP transport are open, whose they are, and
//! when each was last used; and so who may open another.
//!
//! Sessions degrade fairly rather than lock anyone out:
//!
//! - the capacity is sized by memory (thousands of sessions), and each
//!   client (its [`Principal`] when an authenticating layer named one, its
//!   peer address otherwise) holds at most a share of it;
//! - a session initialised and never used closes after a short lifetime;
//! - when the server, or the client, is full, the least recently used idle
//!   session (none of its requests in flight, no stream open) is closed to
//!   make room for the newcomer: a client that floods the server with
//!   sessions evicts its own;
//! - only when every session in the way is active is the newcomer refused:
//!   `503` (the server is full) or `429` (the client is), with `Retry-After`.
//!
//! The table is behind a short synchronous lock, never held across an
//! `await`: admitting a session, starting and ending a request on one are
//! a few map operations each.

use std::collections::{BTreeMap, HashMap};
use std::net::IpAddr;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use rmcp::transport::streamable_http_server::SessionManager;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use tokio_util::sync::CancellationToken;

use crate::value::principal::Principal;

/// The target of this module's log lines, the one hosts filter on.
const LOG_TARGET: &str = "dsh_kit::mcp::admission";

/// Who opens a session, for the per-client cap.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) enum ClientKey {
    /// The subject of the principal an authenticating layer put in the
    /// request's extensions.
    Principal(Arc<str>),
    /// The address the connection came from.
    Peer(IpAddr),
    /// A request that carries neither (served without this module's
    /// connection handling): all such requests are one client.
    Unknown,
}

impl ClientKey {
    /// The client a request comes from: its principal's subject when an
    /// authenticating layer inserted an `Arc<Principal>`, else its peer's
    /// address.
    pub(crate) fn of(extensions: &axum::http::Extensions) -> Self {
        if let Some(principal) = extensions.get::<Arc<Principal>>() {
            return ClientKey::Principal(Arc::from(principal.subject()));
        }
        match extensions.get::<axum::extract::ConnectInfo<std::net::SocketAddr>>() {
            Some(axum::extract::ConnectInfo(addr)) => ClientKey::Peer(addr.ip()),
            None => ClientKey::Unknown,
        }
    }
}

/// The limits the table enforces.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Limits {
    /// Sessions open at once, all clients together.
    pub(crate) max_sessions: usize,
    /// Sessions open at once for one client.
    pub(crate) max_per_client: usize,
    /// How long a session initialised and never used is kept.
    pub(crate) unused_timeout: Duration,
}

/// One open session.
struct Entry {
    client: ClientKey,
    /// Its place in the least-recently-used order.
    touched: u64,
    opened: Instant,
    /// Requests (and streams) on it not finished yet.
    in_flight: u32,
    /// Whether a request other than a notification came after `initialize`.
    used: bool,
}

/// One client's sessions.
#[derive(Default)]
struct ClientSessions {
    /// Its sessions, least recently used first.
    lru: BTreeMap<u64, Arc<str>>,
    /// Its `initialize` requests admitted and not answered yet.
    pending: usize,
}

impl ClientSessions {
    fn count(&self) -> usize {
        self.lru.len() + self.pending
    }
}

#[derive(Default)]
struct Table {
    sessions: HashMap<Arc<str>, Entry>,
    /// Every session, least recently used first.
    lru: BTreeMap<u64, Arc<str>>,
    clients: HashMap<ClientKey, ClientSessions>,
    /// `initialize` requests admitted and not answered yet.
    pending: usize,
    clock: u64,
}

impl Table {
    fn tick(&mut self) -> u64 {
        self.clock += 1;
        self.clock
    }

    /// The least recently used session of `order` with nothing in flight.
    fn idle_in(&self, order: &BTreeMap<u64, Arc<str>>) -> Option<Arc<str>> {
        order
            .values()
            .find(|id| self.sessions.get(*id).is_some_and(|e| e.in_flight == 0))
            .cloned()
    }

    /// Takes `id` out of every index; what the session manager must close.
    fn remove(&mut self, id: &str) -> Option<Arc<str>> {
        let (id, entry) = self.sessions.remove_entry(id)?;
        self.lru.remove(&entry.touched);
        if let Some(client) = self.clients.get_mut(&entry.client) {
            client.lru.remove(&entry.touched);
            if client.count() == 0 {
                self.clients.remove(&entry.client);
            }
        }
        Some(id)
    }

    /// Adds session `id` of `client` as the most recently used; the entry
    /// it replaced, if the id was already there.
    fn insert(&mut self, id: &str, client: ClientKey, used: bool) -> Option<Entry> {
        let touched = self.tick();
        let id: Arc<str> = Arc::from(id);
        self.lru.insert(touched, Arc::clone(&id));
        self.clients
            .entry(client.clone())
            .or_default()
            .lru
            .insert(touched, Arc::clone(&id));
        let entry = Entry {
            client,
            touched,
            opened: Instant::now(),
            in_flight: 0,
            used,
        };
        self.sessions.insert(id, entry)
    }

    fn release_pending(&mut self, client: &ClientKey) {
        self.pending -= 1;
        if let Some(sessions) = self.clients.get_mut(client) {
            sessions.pending -= 1;
            if sessions.count() == 0 {
                self.clients.remove(client);
            }
        }
    }
}

/// Why an `initialize` was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Refusal {
    /// The server holds its capacity of sessions, every one active.
    ServerFull { open: usize },
    /// The client holds its share of sessions, every one active.
    ClientFull { open: usize },
}

/// The open sessions of one HTTP server.
pub(crate) struct Sessions {
    table: Mutex<Table>,
    limits: Limits,
    manager: Arc<LocalSessionManager>,
}

impl Sessions {
    pub(crate) fn new(limits: Limits, manager: Arc<LocalSessionManager>) -> Self {
        Sessions {
            table: Mutex::default(),
            limits,
            manager,
        }
    }

    fn table(&self) -> std::sync::MutexGuard<'_, Table> {
        self.table.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The limits the table enforces.
    pub(crate) fn limits(&self) -> Limits {
        self.limits
    }

    /// How many sessions are open (those being opened included).
    pub(crate) fn open(&self) -> usize {
        let table = self.table();
        table.sessions.len() + table.pending
    }

    /// Admits an `initialize` from `client`, closing the least recently
    /// used idle session first when the client or the server is full.
    pub(crate) async fn admit(self: &Arc<Self>, client: ClientKey) -> Result<Slot, Refusal> {
        let (slot, evicted) = self.reserve(client)?;
        if let Some(id) = evicted {
            self.close(id).await;
        }
        Ok(slot)
    }

    fn reserve(self: &Arc<Self>, client: ClientKey) -> Result<(Slot, Option<Arc<str>>), Refusal> {
        let limits = self.limits;
        let mut table = self.table();
        let theirs = table.clients.get(&client).map_or(0, ClientSessions::count);
        let mut evicted = None;
        if theirs >= limits.max_per_client.min(limits.max_sessions) {
            let order = &table.clients[&client].lru;
            let Some(id) = table.idle_in(order) else {
                // A client allowed every session is refused as the server is.
                return Err(if limits.max_per_client < limits.max_sessions {
                    Refusal::ClientFull { open: theirs }
                } else {
                    Refusal::ServerFull {
                        open: table.sessions.len() + table.pending,
                    }
                });
            };
            evicted = table.remove(&id);
        } else if table.sessions.len() + table.pending >= limits.max_sessions {
            let Some(id) = table.idle_in(&table.lru) else {
                return Err(Refusal::ServerFull {
                    open: table.sessions.len() + table.pending,
                });
            };
            evicted = table.remove(&id);
        }
        table.pending += 1;
        table.clients.entry(client.clone()).or_default().pending += 1;
        drop(table);
        Ok((
            Slot {
                sessions: Arc::clone(self),
                client: Some(client),
            },
            evicted,
        ))
    }

    /// A request on session `id` begins: it counts as active until the
    /// returned guard drops. `None` when the table does not know `id`
    /// (rmcp answers it `404`).
    pub(crate) fn begin(self: &Arc<Self>, id: &str) -> Option<Active> {
        let mut table = self.table();
        let touched = table.tick();
        let table = &mut *table;
        let entry = table.sessions.get_mut(id)?;
        entry.in_flight += 1;
        let before = std::mem::replace(&mut entry.touched, touched);
        let id = table.lru.remove(&before)?;
        table.lru.insert(touched, Arc::clone(&id));
        if let Some(client) = table.clients.get_mut(&entry.client) {
            client.lru.remove(&before);
            client.lru.insert(touched, Arc::clone(&id));
        }
        Some(Active {
            sessions: Arc::clone(self),
            id,
            used: false,
        })
    }

    /// Takes in session `id` of `client`, which this process did not open:
    /// rmcp restored it from the session store, another replica having
    /// opened it. It counts against the caps like any other, as used.
    pub(crate) fn adopt(&self, id: &str, client: ClientKey) {
        let mut table = self.table();
        if table.sessions.contains_key(id) {
            return;
        }
        table.insert(id, client, true);
    }

    /// Forgets session `id`, closed by the client or found gone.
    pub(crate) fn forget(&self, id: &str) {
        self.table().remove(id);
    }

    /// Ends session `id` here: forgotten, and closed in the session manager
    /// (a request on it then finds it gone).
    pub(crate) async fn end(&self, id: &str) {
        self.table().remove(id);
        let id: Arc<str> = Arc::from(id);
        if matches!(self.manager.has_session(&id).await, Ok(true)) {
            self.close(id).await;
        }
    }

    /// The ids of the sessions held here.
    pub(crate) fn ids(&self) -> Vec<String> {
        self.table()
            .sessions
            .keys()
            .map(|id| id.to_string())
            .collect()
    }

    async fn close(&self, id: Arc<str>) {
        if let Err(error) = self.manager.close_session(&id).await {
            tracing::warn!(target: LOG_TARGET, "closing MCP session {id} failed: {error}");
        }
    }

    /// Until `stop`: closes the sessions never used within their lifetime,
    /// and forgets the ones rmcp closed (idle past the idle timeout, or
    /// their worker ended).
    pub(crate) async fn sweep(self: Arc<Self>, stop: CancellationToken) {
        let every = (self.limits.unused_timeout / 4)
            .clamp(Duration::from_millis(10), Duration::from_secs(1));
        let mut ticks = tokio::time::interval(every);
        ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                () = stop.cancelled() => return,
                _ = ticks.tick() => {}
            }
            // Nothing serves these sessions any more: the router that held
            // them was dropped.
            if Arc::strong_count(&self) == 1 {
                return;
            }
            let expired = self.expired(Instant::now());
            for id in expired {
                self.close(id).await;
            }
            let live: std::collections::HashSet<Arc<str>> = self
                .manager
                .sessions
                .read()
                .await
                .keys()
                .map(Arc::clone)
                .collect();
            let mut table = self.table();
            let gone: Vec<Arc<str>> = table
                .sessions
                .keys()
                .filter(|id| !live.contains(*id))
                .cloned()
                .collect();
            for id in gone {
                table.remove(&id);
            }
        }
    }

    /// Takes out the sessions opened before `now` less the unused
    /// lifetime, never used and idle.
    fn expired(&self, now: Instant) -> Vec<Arc<str>> {
        let mut table = self.table();
        let timeout = self.limits.unused_timeout;
        let expired: Vec<Arc<str>> = table
            .lru
            .values()
            .filter(|id| {
                table.sessions.get(*id).is_some_and(|entry| {
                    !entry.used && entry.in_flight == 0 && now - entry.opened >= timeout
                })
            })
            .cloned()
            .collect();
        for id in &expired {
            table.remove(id);
        }
        expired
    }
}

/// An admitted `initialize`: room for one session of its client, until the
/// session opens ([`Slot::opened`]) or the slot drops.
pub(crate) struct Slot {
    sessions: Arc<Sessions>,
    client: Option<ClientKey>,
}

impl Slot {
    /// The `initialize` opened session `id`.
    pub(crate) fn opened(mut self, id: &str) {
        let Some(client) = self.client.take() else {
            return;
        };
        let mut table = self.sessions.table();
        table.release_pending(&client);
        if let Some(replaced) = table.insert(id, client, false) {
            // A session id seen twice: rmcp's ids are random UUIDs, so this
            // is never expected; keep the indexes consistent regardless.
            table.lru.remove(&replaced.touched);
        }
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        if let Some(client) = self.client.take() {
            self.sessions.table().release_pending(&client);
        }
    }
}

/// A request in flight on a session; the session is not idle until it drops.
pub(crate) struct Active {
    sessions: Arc<Sessions>,
    id: Arc<str>,
    used: bool,
}

impl Active {
    /// The request was one that uses the session (not a notification).
    pub(crate) fn used(&mut self) {
        self.used = true;
    }
}

impl Drop for Active {
    fn drop(&mut self) {
        let mut table = self.sessions.table();
        if let Some(entry) = table.sessions.get_mut(&*self.id) {
            entry.in_flight -= 1;
            entry.used |= self.used;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sessions(max_sessions: usize, max_per_client: usize) -> Arc<Sessions> {
        Arc::new(Sessions::new(
            Limits {
                max_sessions,
                max_per_client,
                unused_timeout: Duration::from_secs(10),
            },
            Arc::new(LocalSessionManager::default()),
        ))
    }

    fn peer(last: u8) -> ClientKey {
        ClientKey::Peer(IpAddr::from([127, 0, 0, last]))
    }

    #[tokio::test]
    async fn a_full_client_evicts_its_own_least_recently_used_idle_session() {
        let sessions = sessions(10, 2);
        sessions.admit(peer(1)).await.unwrap().opened("a1");
        sessions.admit(peer(1)).await.unwrap().opened("a2");
        sessions.admit(peer(2)).await.unwrap().opened("b1");
        drop(sessions.begin("a1"));
        sessions.admit(peer(1)).await.unwrap().opened("a3");
        let table = sessions.table();
        let mut open: Vec<&str> = table.sessions.keys().map(|id| &**id).collect();
        open.sort_unstable();
        assert_eq!(open, ["a1", "a3", "b1"]);
    }

    #[tokio::test]
    async fn a_full_server_evicts_the_least_recently_used_idle_session() {
        let sessions = sessions(2, 2);
        sessions.admit(peer(1)).await.unwrap().opened("a1");
        sessions.admit(peer(2)).await.unwrap().opened("b1");
        let _busy = sessions.begin("a1");
        sessions.admit(peer(3)).await.unwrap().opened("c1");
        let table = sessions.table();
        assert!(table.sessions.contains_key("a1"));
        assert!(!table.sessions.contains_key("b1"));
        assert!(table.sessions.contains_key("c1"));
    }

    #[tokio::test]
    async fn only_when_every_session_is_active_is_a_newcomer_refused() {
        let sessions = sessions(2, 1);
        sessions.admit(peer(1)).await.unwrap().opened("a1");
        sessions.admit(peer(2)).await.unwrap().opened("b1");
        let _a = sessions.begin("a1").unwrap();
        let _b = sessions.begin("b1").unwrap();
        assert_eq!(
            sessions.admit(peer(3)).await.err(),
            Some(Refusal::ServerFull { open: 2 })
        );
        assert_eq!(
            sessions.admit(peer(1)).await.err(),
            Some(Refusal::ClientFull { open: 1 })
        );
        drop(_b);
        assert!(sessions.admit(peer(3)).await.is_ok());
    }

    #[tokio::test]
    async fn a_session_restored_from_another_replica_counts_against_the_caps() {
        let sessions = sessions(2, 2);
        sessions.adopt("elsewhere", peer(1));
        sessions.adopt("elsewhere", peer(1));
        assert_eq!(sessions.open(), 1);
        let _busy = sessions.begin("elsewhere").unwrap();
        sessions.admit(peer(2)).await.unwrap().opened("b1");
        // Full, and the adopted session is active: a newcomer evicts the idle one.
        sessions.admit(peer(3)).await.unwrap().opened("c1");
        let table = sessions.table();
        assert!(table.sessions.contains_key("elsewhere"));
        assert!(!table.sessions.contains_key("b1"));
    }

    #[tokio::test]
    async fn a_slot_dropped_unopened_gives_its_room_back() {
        let sessions = sessions(1, 1);
        drop(sessions.admit(peer(1)).await.unwrap());
        assert_eq!(sessions.open(), 0);
        sessions.admit(peer(1)).await.unwrap().opened("a1");
        assert_eq!(sessions.open(), 1);
    }

    #[tokio::test]
    async fn sessions_never_used_expire_and_used_ones_stay() {
        let sessions = sessions(10, 10);
        sessions.admit(peer(1)).await.unwrap().opened("unused");
        sessions.admit(peer(2)).await.unwrap().opened("used");
        sessions.begin("used").unwrap().used();
        let later = Instant::now() + Duration::from_secs(11);
        assert_eq!(sessions.expired(later), [Arc::<str>::from("unused")]);
        assert_eq!(sessions.open(), 1);
    }
}

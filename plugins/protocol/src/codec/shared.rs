//! A received packet whose decoded forms are computed once and shared by every reader.

use std::any::{Any, TypeId};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use super::{CodecError, Packet, Protocol, Value, from_value, peek_packet_id};

/// One received packet body plus a lazily filled cache of its decoded forms.
///
/// The body is decoded into a value tree at most once, on the first [`SharedPacket::view`] of
/// any type; each typed view is built from that tree at most once and handed out as the same
/// `Arc` to every caller. Cloning is cheap and clones share the cache, so all the systems that
/// read one packet in a tick share one decode.
#[derive(Clone)]
pub struct SharedPacket {
    inner: Arc<Inner>,
}

type AnyView = Arc<dyn Any + Send + Sync>;

/// A cache lookup: the view (or why there is none) and whether this lookup built it.
struct Lookup<P> {
    result: Result<Option<Arc<P>>, CodecError>,
    built: bool,
}

struct Inner {
    id: u32,
    body: Box<[u8]>,
    protocol: Arc<Protocol>,
    /// The decoded value tree, or why the body does not decode.
    tree: OnceLock<Result<Value, CodecError>>,
    /// Typed views built so far, and the views that failed (so a failure is reported once).
    views: Mutex<Vec<(TypeId, Result<AnyView, CodecError>)>>,
    /// How often the body was decoded (0 or 1): lets tests prove the sharing.
    decodes: AtomicU32,
}

impl std::fmt::Debug for SharedPacket {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SharedPacket")
            .field("id", &self.inner.id)
            .field("name", &self.name())
            .field("len", &self.inner.body.len())
            .finish()
    }
}

impl SharedPacket {
    /// Wraps a packet body (varu32 header + fields) received on a connection speaking `protocol`.
    /// Fails only if the header itself is unreadable.
    pub fn new(body: Vec<u8>, protocol: Arc<Protocol>) -> Result<Self, CodecError> {
        let id = peek_packet_id(&body)?;
        Ok(Self {
            inner: Arc::new(Inner {
                id,
                body: body.into_boxed_slice(),
                protocol,
                tree: OnceLock::new(),
                views: Mutex::new(Vec::new()),
                decodes: AtomicU32::new(0),
            }),
        })
    }

    /// The packet id (low 10 bits of the header).
    pub fn id(&self) -> u32 {
        self.inner.id
    }

    /// The packet's name in its protocol version (`"unknown"` for an id the version lacks).
    pub fn name(&self) -> &str {
        self.inner.protocol.packet_name(self.inner.id).unwrap_or("unknown")
    }

    /// The raw body, header included.
    pub fn body(&self) -> &[u8] {
        &self.inner.body
    }

    /// The protocol version the packet was received with.
    pub fn protocol(&self) -> &Arc<Protocol> {
        &self.inner.protocol
    }

    /// Whether this is a `P`.
    pub fn is<P: Packet>(&self) -> bool {
        self.inner.protocol.packet_id(P::NAME) == Some(self.inner.id)
    }

    /// The value tree of the whole packet, decoded on first use.
    pub fn tree(&self) -> Result<&Value, &CodecError> {
        self.inner
            .tree
            .get_or_init(|| {
                self.inner.decodes.fetch_add(1, Ordering::Relaxed);
                self.inner.protocol.decode_canonical(&self.inner.body).map(|(_, v)| v)
            })
            .as_ref()
    }

    /// How many times the body was decoded so far: 0 before the first view, then 1 forever.
    pub fn decode_count(&self) -> u32 {
        self.inner.decodes.load(Ordering::Relaxed)
    }

    /// The errors of the views that failed to build so far (each reported once by
    /// [`SharedPacket::view`]); the network layer counts them per bot at the end of the tick.
    pub fn errors(&self) -> Vec<CodecError> {
        let views = self.inner.views.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        views.iter().filter_map(|(_, v)| v.as_ref().err().cloned()).collect()
    }

    /// The typed view `P` if this packet is one: `Ok(None)` for another packet, `Err` if the body
    /// does not decode as `P`. The view is built once and shared (same `Arc`) by every caller.
    pub fn try_view<P: Packet>(&self) -> Result<Option<Arc<P>>, CodecError> {
        self.cached::<P>().result
    }

    /// Like [`SharedPacket::try_view`], but a packet that does not decode is logged (once, at
    /// warn level) and reads as `None`: a server sending garbage must not take the bot down.
    pub fn view<P: Packet>(&self) -> Option<Arc<P>> {
        let lookup = self.cached::<P>();
        match lookup.result {
            Ok(view) => view,
            Err(e) => {
                if lookup.built {
                    tracing::warn!(packet = P::NAME, error = %e, "dropping undecodable packet");
                }
                None
            }
        }
    }

    /// The cached view, building it on first use.
    fn cached<P: Packet>(&self) -> Lookup<P> {
        if !self.is::<P>() {
            return Lookup { result: Ok(None), built: false };
        }
        let key = TypeId::of::<P>();
        let mut views = self.inner.views.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some((_, cached)) = views.iter().find(|(k, _)| *k == key) {
            let result = match cached {
                Ok(any) => Ok(Arc::clone(any).downcast::<P>().ok()),
                Err(e) => Err(e.clone()),
            };
            return Lookup { result, built: false };
        }
        let built = self.build::<P>().map(Arc::new);
        views.push((key, built.clone().map(|v| v as AnyView)));
        Lookup { result: built.map(Some), built: true }
    }

    fn build<P: Packet>(&self) -> Result<P, CodecError> {
        let tree = self.tree().map_err(Clone::clone)?;
        from_value(tree).map_err(|source| CodecError::Typed { packet: P::NAME.to_owned(), source })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packets::{PlayStatus, SetTime};

    fn protocol() -> Arc<Protocol> {
        let v = Protocol::versions().last().expect("a bundled version").game_version;
        Arc::new(Protocol::load(v).expect("load"))
    }

    #[test]
    fn views_are_decoded_once_and_shared() {
        let p = protocol();
        let body = p.encode(&SetTime { time: 6000 }).expect("encode");
        let packet = SharedPacket::new(body, p.clone()).expect("header");
        let other = packet.clone();
        assert_eq!(packet.decode_count(), 0, "nothing decoded before a view is asked for");
        assert!(packet.view::<PlayStatus>().is_none(), "another packet's view");
        assert_eq!(packet.decode_count(), 0, "asking for another packet's view decodes nothing");
        let a = packet.view::<SetTime>().expect("set_time");
        let b = other.view::<SetTime>().expect("set_time from a clone");
        assert!(Arc::ptr_eq(&a, &b), "clones share one view");
        assert_eq!(a.time, 6000);
        assert_eq!((packet.decode_count(), packet.name()), (1, "set_time"));
    }

    #[test]
    fn a_packet_that_does_not_decode_is_an_error_once_cached() {
        let p = protocol();
        let mut body = p.encode(&SetTime { time: 6000 }).expect("encode");
        body.truncate(1);
        let packet = SharedPacket::new(body, p).expect("header");
        let err = packet.try_view::<SetTime>().expect_err("truncated");
        assert!(err.to_string().contains("set_time"), "{err}");
        assert!(packet.try_view::<SetTime>().is_err(), "the failure is remembered");
        assert_eq!(packet.decode_count(), 1);
        assert!(SharedPacket::new(Vec::new(), protocol()).is_err(), "no header");
    }
}

//! Client state-machine tests driven by hand-built server datagrams, a lossy loopback against a
//! tiny in-test server, and a fuzz run. No sockets anywhere.

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::time::{Duration, Instant};

use super::frame::{
    Datagram, FLAG_ACK, FLAG_NACK, Frame, Reliability, SplitInfo, encode_ack_datagrams, encode_data_datagram,
    parse_datagram,
};
use super::message::{OFFLINE_MAGIC, id, write_address};
use super::receive::Receiver;
use super::send::Sender;
use super::*;
use crate::io::{Reader, WriteExt};

const SERVER_GUID: u64 = 0x5e5e_5e5e;
const CLIENT_GUID: u64 = 0x42;

fn server() -> SocketAddr {
    "192.168.1.10:19132".parse().expect("literal")
}

fn client_seen_addr() -> SocketAddr {
    "10.0.0.5:50000".parse().expect("literal")
}

fn config() -> RakConfig {
    RakConfig { client_guid: CLIENT_GUID, ..RakConfig::default() }
}

fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

fn drain(c: &mut RakClient) -> Vec<Vec<u8>> {
    std::iter::from_fn(|| c.poll_transmit()).collect()
}

fn events(c: &mut RakClient) -> Vec<RakEvent> {
    std::iter::from_fn(|| c.poll_event()).collect()
}

fn reply1(guid: u64, cookie: Option<u32>, mtu: u16) -> Vec<u8> {
    let mut b = vec![id::OPEN_CONNECTION_REPLY_1];
    b.put_bytes(&OFFLINE_MAGIC);
    b.put_u64_be(guid);
    b.put_bool(cookie.is_some());
    if let Some(c) = cookie {
        b.put_u32_be(c);
    }
    b.put_u16_be(mtu);
    b
}

fn reply2(mtu: u16) -> Vec<u8> {
    let mut b = vec![id::OPEN_CONNECTION_REPLY_2];
    b.put_bytes(&OFFLINE_MAGIC);
    b.put_u64_be(SERVER_GUID);
    write_address(&mut b, &client_seen_addr());
    b.put_u16_be(mtu);
    b.put_u8(0);
    b
}

fn cra_payload(request_time: i64, addresses: usize) -> Vec<u8> {
    let mut b = vec![id::CONNECTION_REQUEST_ACCEPTED];
    write_address(&mut b, &client_seen_addr());
    b.put_u16_be(0);
    for _ in 0..addresses {
        write_address(&mut b, &server());
    }
    b.put_i64_be(request_time);
    b.put_i64_be(999_000);
    b
}

/// Frames of every data datagram in `pkts`.
fn data_frames(pkts: &[Vec<u8>]) -> Vec<Frame> {
    pkts.iter()
        .filter_map(|p| match parse_datagram(p) {
            Ok(Datagram::Data { frames, .. }) => Some(frames),
            _ => None,
        })
        .flatten()
        .collect()
}

/// ACK (or NACK) ranges in `pkts`.
fn ack_ranges(pkts: &[Vec<u8>], nack: bool) -> Vec<(u32, u32)> {
    pkts.iter()
        .filter_map(|p| match parse_datagram(p) {
            Ok(Datagram::Ack(r)) if !nack => Some(r),
            Ok(Datagram::Nack(r)) if nack => Some(r),
            _ => None,
        })
        .flatten()
        .collect()
}

/// A hand-cranked server: assigns indices like a RakNet peer would.
#[derive(Default)]
struct Srv {
    seq: u32,
    msg: u32,
    order: u32,
    sequence: u32,
}

impl Srv {
    fn frame(&mut self, rel: Reliability, payload: &[u8]) -> Frame {
        let mut f = Frame::new(rel, payload.to_vec());
        if rel.is_reliable() {
            f.message_index = self.msg;
            self.msg += 1;
        }
        if rel.is_sequenced() {
            f.sequence_index = self.sequence;
            self.sequence += 1;
            f.order_index = self.order;
        } else if rel.has_order() {
            f.order_index = self.order;
            self.order += 1;
        }
        f
    }

    fn dgram(&mut self, frames: &[Frame]) -> Vec<u8> {
        let d = encode_data_datagram(self.seq, frames);
        self.seq += 1;
        d
    }

    fn deliver(&mut self, c: &mut RakClient, rel: Reliability, payload: &[u8], now: Instant) {
        let f = self.frame(rel, payload);
        let d = self.dgram(&[f]);
        c.handle_datagram(&d, now);
    }
}

/// Runs the whole handshake at `now`; returns a connected client with its output drained.
fn connect(now: Instant) -> (RakClient, Srv) {
    let mut c = RakClient::new(config(), server(), now);
    drain(&mut c);
    c.handle_datagram(&reply1(SERVER_GUID, None, 1400), now);
    drain(&mut c);
    c.handle_datagram(&reply2(1400), now);
    let frames = data_frames(&drain(&mut c));
    let request_time = Reader::new(&frames[0].payload[9..17]).i64_be().expect("ConnectionRequest time");
    let mut srv = Srv::default();
    srv.deliver(&mut c, Reliability::Reliable, &cra_payload(request_time, 20), now);
    assert_eq!(events(&mut c), [RakEvent::Connected]);
    drain(&mut c);
    (c, srv)
}

#[test]
fn request1_mtu_discovery_steps_down_then_fails() {
    let t = Instant::now();
    let cfg = RakConfig { connect_timeout: Duration::from_secs(60), ..config() };
    let mut c = RakClient::new(cfg, server(), t);
    let mut sizes = Vec::new();
    let mut now = t;
    sizes.extend(drain(&mut c).iter().map(|p| {
        assert_eq!(&p[..18], &[&[0x05][..], &OFFLINE_MAGIC, &[11]].concat()[..]);
        p.len()
    }));
    assert_eq!(c.next_timeout(), Some(t + ms(500)));
    c.tick(t + ms(499));
    assert!(drain(&mut c).is_empty(), "not yet due");
    while !c.is_closed() {
        now += ms(500);
        c.tick(now);
        sizes.extend(drain(&mut c).iter().map(Vec::len));
    }
    assert_eq!(sizes, [1464, 1464, 1464, 1172, 1172, 1172, 548, 548, 548]);
    assert!(matches!(events(&mut c).as_slice(), [RakEvent::Disconnected(DisconnectReason::ConnectFailed(_))]));
    assert_eq!(c.next_timeout(), None);
}

#[test]
fn handshake_with_cookie_reaches_connected() {
    let t = Instant::now();
    let mut c = RakClient::new(config(), server(), t);
    drain(&mut c);
    c.handle_datagram(&reply1(SERVER_GUID, Some(0xC0FFEE01), 1492), t + ms(20));
    let out = drain(&mut c);
    assert_eq!(out.len(), 1);
    let mut want = vec![0x07];
    want.extend_from_slice(&OFFLINE_MAGIC);
    want.extend_from_slice(&[0xC0, 0xFF, 0xEE, 0x01, 0x00]); // cookie + "no client challenge"
    want.extend_from_slice(&[4, !192, !168, !1, !10, 0x4a, 0xbc]); // bitwise-NOT IPv4
    want.extend_from_slice(&1492u16.to_be_bytes());
    want.extend_from_slice(&CLIENT_GUID.to_be_bytes());
    assert_eq!(out[0], want);
    // Request2 is retried until Reply2 arrives.
    c.tick(t + ms(520));
    assert_eq!(drain(&mut c), [want]);

    c.handle_datagram(&reply2(1400), t + ms(600));
    assert_eq!(c.mtu(), 1400);
    let frames = data_frames(&drain(&mut c));
    assert_eq!(frames.len(), 1);
    assert_eq!(frames[0].reliability, Reliability::Reliable);
    let req = &frames[0].payload;
    assert_eq!(req.len(), 18);
    assert_eq!(req[0], 0x09);
    assert_eq!(&req[1..9], &CLIENT_GUID.to_be_bytes());
    assert_eq!(req[17], 0);
    assert!(!c.is_connected());
    assert_eq!(c.send(b"x", t), Err(RakError::NotConnected));

    // CRA with only 10 system addresses, as some servers send.
    let request_time = Reader::new(&req[9..17]).i64_be().expect("time");
    let mut srv = Srv::default();
    srv.deliver(&mut c, Reliability::ReliableOrdered, &cra_payload(request_time, 10), t + ms(650));
    assert_eq!(events(&mut c), [RakEvent::Connected]);
    assert!(c.is_connected());
    assert_eq!(c.rtt(), ms(50), "RTT from the echoed request time");
    c.tick(t + ms(700));
    let out = drain(&mut c);
    let nic: Vec<Frame> = data_frames(&out).into_iter().filter(|f| f.payload[0] == 0x13).collect();
    assert_eq!(nic.len(), 1);
    assert_eq!(nic[0].reliability, Reliability::ReliableOrdered);
    let p = &nic[0].payload;
    assert_eq!(p.len(), 1 + 7 + 20 * 7 + 16);
    assert_eq!(&p[1..8], &[4, !192, !168, !1, !10, 0x4a, 0xbc]);
    assert_eq!(&p[148..156], &999_000i64.to_be_bytes(), "pong time = accepted time");
    assert_eq!(ack_ranges(&out, false), [(0, 0)], "the CRA datagram is ACKed");
}

#[test]
fn reply1_quirks_and_cookie_refresh() {
    let t = Instant::now();
    let mut c = RakClient::new(config(), server(), t);
    drain(&mut c);
    // guid 0: probe with a Request2 but keep waiting for a real Reply1.
    c.handle_datagram(&reply1(0, None, 1400), t);
    let out = drain(&mut c);
    assert_eq!(out.len(), 1);
    assert_eq!(out[0][0], 0x07);
    // Silly MTU: same.
    c.handle_datagram(&reply1(SERVER_GUID, None, 50), t);
    assert_eq!(drain(&mut c)[0][0], 0x07);
    c.tick(t + ms(500));
    assert_eq!(drain(&mut c)[0][0], 0x05, "still in MTU discovery");
    // Real reply: server MTU is capped by our candidate.
    c.handle_datagram(&reply1(SERVER_GUID, Some(1), 1400), t + ms(510));
    let out = drain(&mut c);
    assert_eq!(&out[0][17..22], &[0, 0, 0, 1, 0]);
    assert_eq!(c.mtu(), 1400);
    // Fresh Reply1 with a new cookie during Request2: echo the new cookie immediately.
    c.handle_datagram(&reply1(SERVER_GUID, Some(2), 1400), t + ms(520));
    assert_eq!(&drain(&mut c)[0][17..22], &[0, 0, 0, 2, 0]);
    // Garbage Reply2 is dropped without state change.
    c.handle_datagram(&reply2(1400)[..20], t + ms(530));
    assert!(!c.is_connected() && !c.is_closed());
}

#[test]
fn quirky_reply1_then_reply2_still_connects() {
    let t = Instant::now();
    let mut c = RakClient::new(config(), server(), t);
    drain(&mut c);
    c.handle_datagram(&reply1(0, None, 1400), t);
    drain(&mut c);
    c.handle_datagram(&reply2(1200), t);
    assert_eq!(c.mtu(), 1200);
    assert_eq!(data_frames(&drain(&mut c))[0].payload[0], 0x09);
}

#[test]
fn request2_encodes_ipv6_server() {
    let t = Instant::now();
    let v6: SocketAddr = "[2001:db8::7]:19133".parse().expect("literal");
    let mut c = RakClient::new(config(), v6, t);
    drain(&mut c);
    c.handle_datagram(&reply1(SERVER_GUID, None, 1400), t);
    let out = drain(&mut c);
    let p = &out[0];
    assert_eq!(p.len(), 1 + 16 + 29 + 2 + 8);
    assert_eq!(&p[17..22], &[6, 23, 0, 0x4a, 0xbd]);
    assert_eq!(&p[26..28], &[0x20, 0x01]);
}

#[test]
fn incompatible_protocol_and_rejections() {
    let t = Instant::now();
    let mut c = RakClient::new(config(), server(), t);
    let mut b = vec![0x19, 10];
    b.put_bytes(&OFFLINE_MAGIC);
    b.put_u64_be(SERVER_GUID);
    c.handle_datagram(&b, t);
    assert_eq!(events(&mut c).last(), Some(&RakEvent::Disconnected(DisconnectReason::IncompatibleProtocol(10))));
    assert!(c.is_closed());
    assert!(DisconnectReason::IncompatibleProtocol(10).to_string().contains("10"));

    let mut c = RakClient::new(config(), server(), t);
    let mut b = vec![id::NO_FREE_INCOMING_CONNECTIONS];
    b.put_bytes(&OFFLINE_MAGIC);
    c.handle_datagram(&b, t);
    assert!(matches!(events(&mut c).as_slice(), [RakEvent::Disconnected(DisconnectReason::ConnectFailed(_))]));
}

#[test]
fn handshake_times_out_without_reply2() {
    let t = Instant::now();
    let mut c = RakClient::new(config(), server(), t);
    c.handle_datagram(&reply1(SERVER_GUID, None, 1400), t);
    let mut now = t;
    let mut request2s = 0;
    while !c.is_closed() {
        now = c.next_timeout().expect("timer while connecting");
        c.tick(now);
        request2s += drain(&mut c).iter().filter(|p| p[0] == 0x07).count();
    }
    assert_eq!(now, t + Duration::from_secs(10));
    assert!(request2s >= 19);
    assert!(matches!(events(&mut c).as_slice(), [RakEvent::Disconnected(DisconnectReason::ConnectFailed(_))]));
}

#[test]
fn pings_pongs_and_detect_lost_connections() {
    let t = Instant::now();
    let (mut c, mut srv) = connect(t);
    let mut ping = vec![id::CONNECTED_PING];
    ping.put_i64_be(1234);
    srv.deliver(&mut c, Reliability::Unreliable, &ping, t + ms(10));
    let f = data_frames(&drain(&mut c));
    assert_eq!(f.len(), 1);
    assert_eq!(f[0].reliability, Reliability::Unreliable);
    assert_eq!(f[0].payload[0], 0x03);
    assert_eq!(&f[0].payload[1..9], &1234i64.to_be_bytes());
    assert_eq!(&f[0].payload[9..17], &10i64.to_be_bytes());

    srv.deliver(&mut c, Reliability::Reliable, &[id::DETECT_LOST_CONNECTIONS], t + ms(20));
    let f = data_frames(&drain(&mut c));
    assert_eq!(f[0].payload[0], 0x00);
    assert_eq!(f[0].reliability, Reliability::Unreliable);

    // Our own ping every 2 s; a pong updates the RTT.
    c.tick(t + Duration::from_secs(2));
    let pings: Vec<Frame> = data_frames(&drain(&mut c)).into_iter().filter(|f| f.payload[0] == 0x00).collect();
    assert_eq!(pings.len(), 1);
    let sent = Reader::new(&pings[0].payload[1..]).i64_be().expect("time");
    let mut pong = vec![id::CONNECTED_PONG];
    pong.put_i64_be(sent);
    pong.put_i64_be(0);
    srv.deliver(&mut c, Reliability::Unreliable, &pong, t + Duration::from_secs(2) + ms(30));
    assert!(c.rtt() < ms(300));
    assert!(events(&mut c).is_empty(), "control messages are not delivered");
}

#[test]
fn server_disconnect_is_acked_and_reported() {
    let t = Instant::now();
    let (mut c, mut srv) = connect(t);
    srv.deliver(&mut c, Reliability::ReliableOrdered, &[id::DISCONNECTION_NOTIFICATION], t);
    assert_eq!(events(&mut c), [RakEvent::Disconnected(DisconnectReason::ServerClosed)]);
    assert!(c.is_closed());
    assert_eq!(ack_ranges(&drain(&mut c), false), [(0, 1)]);
    assert_eq!(c.send(b"x", t), Err(RakError::Closed));
    c.tick(t + Duration::from_secs(60));
    assert!(events(&mut c).is_empty());
}

#[test]
fn local_disconnect_sends_notification() {
    let t = Instant::now();
    let (mut c, _srv) = connect(t);
    c.send(b"\xfebye", t).expect("connected");
    c.disconnect(t);
    let f = data_frames(&drain(&mut c));
    let ids: Vec<u8> = f.iter().map(|f| f.payload[0]).collect();
    assert_eq!(ids, [0xfe, 0x15], "queued data goes out before the notification");
    assert_eq!(f[1].reliability, Reliability::ReliableOrdered);
    assert_eq!(events(&mut c), [RakEvent::Disconnected(DisconnectReason::LocalClose)]);
    assert!(c.is_closed() && c.next_timeout().is_none());
}

#[test]
fn silence_times_out() {
    let t = Instant::now();
    let (mut c, mut srv) = connect(t);
    srv.deliver(&mut c, Reliability::Unreliable, b"\xfe", t + Duration::from_secs(5));
    let mut now = t;
    while !c.is_closed() {
        let next = c.next_timeout().expect("timer");
        assert!(next > now || next == now && now == t);
        now = next.max(now + ms(1));
        c.tick(now);
        drain(&mut c);
    }
    assert!(now >= t + Duration::from_secs(15) && now < t + Duration::from_secs(16));
    assert_eq!(events(&mut c).last(), Some(&RakEvent::Disconnected(DisconnectReason::Timeout)));
}

#[test]
fn every_reliability_type_is_delivered() {
    let t = Instant::now();
    let (mut c, mut srv) = connect(t);
    for bits in 0..8u8 {
        let rel = Reliability::from_bits(bits);
        let f = srv.frame(rel, &[0xfe, bits]);
        let mut d = srv.dgram(&[f]);
        d[4] = (bits << 5) | (d[4] & 0x1f); // put the raw 5..7 value on the wire
        c.handle_datagram(&d, t);
    }
    let got: Vec<RakEvent> = events(&mut c);
    let want: Vec<RakEvent> = (0..8u8).map(|b| RakEvent::Message(vec![0xfe, b])).collect();
    assert_eq!(got, want);
}

#[test]
fn unknown_ids_are_messages_but_control_ids_are_not() {
    let t = Instant::now();
    let (mut c, mut srv) = connect(t);
    for p in [&[0xfe, 1][..], &[0x86], &[0x13, 0], &[0x1c], &[0x30, 7]] {
        srv.deliver(&mut c, Reliability::ReliableOrdered, p, t);
    }
    assert_eq!(
        events(&mut c),
        [RakEvent::Message(vec![0xfe, 1]), RakEvent::Message(vec![0x86]), RakEvent::Message(vec![0x30, 7])]
    );
}

#[test]
fn reordered_duplicated_datagrams_and_out_of_order_split() {
    let t = Instant::now();
    let (mut c, mut srv) = connect(t);
    let a = srv.frame(Reliability::ReliableOrdered, b"\xfeA");
    // A split message "B" in three parts sharing one order index.
    let mut parts = Vec::new();
    let order = srv.order;
    srv.order += 1;
    for (i, chunk) in [&b"\xfeB1"[..], b"B2", b"B3"].iter().enumerate() {
        let mut f = Frame::new(Reliability::ReliableOrdered, chunk.to_vec());
        f.message_index = srv.msg;
        srv.msg += 1;
        f.order_index = order;
        f.split = Some(SplitInfo { count: 3, id: 77, index: i as u32 });
        parts.push(f);
    }
    let cc = srv.frame(Reliability::ReliableOrdered, b"\xfeC");
    let d_a = srv.dgram(&[a]);
    let d_p0 = srv.dgram(&[parts[0].clone()]);
    let d_p1p2 = srv.dgram(&[parts[2].clone(), parts[1].clone()]);
    let d_c = srv.dgram(&[cc]);
    for d in [&d_c, &d_p1p2, &d_c, &d_p1p2] {
        c.handle_datagram(d, t);
    }
    assert!(events(&mut c).is_empty(), "waiting for A");
    c.tick(t + ms(49));
    assert!(drain(&mut c).is_empty(), "ACKs wait for the flush interval");
    c.tick(t + ms(50));
    let out = drain(&mut c);
    let mut acked = ack_ranges(&out, false);
    acked.sort_unstable();
    assert_eq!(acked, [(0, 0), (3, 4)], "0 is the CRA datagram; duplicates ACKed once");
    let mut nacked = ack_ranges(&out, true);
    nacked.sort_unstable();
    assert_eq!(nacked, [(1, 2)], "gaps NACKed once older than the flush interval");
    c.tick(t + ms(100));
    assert!(ack_ranges(&drain(&mut c), true).is_empty(), "each gap is NACKed once");
    for d in [&d_p0, &d_a, &d_a, &d_p0] {
        c.handle_datagram(d, t + ms(120));
    }
    assert_eq!(
        events(&mut c),
        [
            RakEvent::Message(b"\xfeA".to_vec()),
            RakEvent::Message(b"\xfeB1B2B3".to_vec()),
            RakEvent::Message(b"\xfeC".to_vec())
        ]
    );
}

#[test]
fn send_splits_and_resends_on_nack_and_timeout() {
    let t = Instant::now();
    let (mut c, mut srv) = connect(t);
    // Acknowledge the handshake datagrams (ConnectionRequest = 0, NewIncomingConnection = 1).
    let ack = encode_ack_datagrams(FLAG_ACK, &[(0, 1)], 1400);
    c.handle_datagram(&ack[0], t + ms(40));
    c.tick(t + ms(50)); // flush our ACK of the CRA datagram
    drain(&mut c);
    assert!(c.rtt() > Duration::ZERO && c.rtt() <= ms(40), "sample folded in");
    assert!(c.next_timeout() >= Some(t + Duration::from_secs(2)), "no resend pending");

    let payload: Vec<u8> = (0..5000u32).map(|i| (i * 7) as u8).collect();
    c.send(&payload, t + ms(50)).expect("connected");
    let out = drain(&mut c);
    assert!(out.len() >= 4);
    assert!(out.iter().all(|d| d.len() <= usize::from(c.mtu() - UDP_OVERHEAD)));
    let mut rx = Receiver::default();
    let mut got = Vec::new();
    // The peer already has NewIncomingConnection (message index 1, order index 0).
    let mut nic = Frame::new(Reliability::ReliableOrdered, vec![0x13]);
    nic.message_index = 1;
    rx.receive_frame(nic, &mut got);
    for d in &out {
        if let Ok(Datagram::Data { seq, frames }) = parse_datagram(d) {
            assert!(rx.receive_datagram(seq, t));
            for f in frames {
                rx.receive_frame(f, &mut got);
            }
        }
    }
    assert_eq!(got.len(), 2);
    assert!(got[1] == payload, "reassembled payload differs");

    // NACK datagram 3: resent right away with a fresh number.
    let nack = encode_ack_datagrams(FLAG_NACK, &[(3, 3)], 1400);
    c.handle_datagram(&nack[0], t + ms(60));
    let resent = drain(&mut c);
    assert_eq!(resent.len(), 1);
    let Ok(Datagram::Data { seq, frames }) = parse_datagram(&resent[0]) else {
        panic!("resend is a data datagram");
    };
    assert_eq!(seq, 2 + out.len() as u32);
    let original = data_frames(&out[1..2]);
    assert_eq!(frames, original);

    // The rest is resent on timeout: max(2×RTT, 100 ms) after sending.
    c.tick(t + ms(50 + 99));
    assert!(drain(&mut c).is_empty());
    c.tick(t + ms(50 + 100));
    assert_eq!(drain(&mut c).len(), out.len() - 1);
    // Everything ACKed: nothing in flight any more.
    let all = encode_ack_datagrams(FLAG_ACK, &[(0, 100)], 1400);
    c.handle_datagram(&all[0], t + ms(200));
    c.tick(t + Duration::from_secs(1));
    assert!(drain(&mut c).is_empty());
    srv.deliver(&mut c, Reliability::Unreliable, b"\xfe", t + Duration::from_secs(1));
}

#[test]
fn idle_ticks_reuse_the_datagram_buffer_and_resend_nothing() {
    let t = Instant::now();
    let (mut c, _srv) = connect(t);
    let ack_of = |seq: u32| encode_ack_datagrams(FLAG_ACK, &[(seq, seq)], 1400).remove(0);
    c.handle_datagram(&ack_of(0), t);
    c.handle_datagram(&ack_of(1), t);
    c.tick(t + ms(50)); // our ACK of the handshake
    drain(&mut c);
    let mut buf = Vec::with_capacity(1500);
    let at = buf.as_ptr();
    let mut now = t;
    for tick in 0..100u32 {
        now += ms(50);
        let batch = vec![0xfe; 1 + tick as usize];
        c.send_owned(batch.clone(), now).expect("connected");
        assert!(c.poll_transmit_into(&mut buf));
        let Ok(Datagram::Data { seq, frames }) = parse_datagram(&buf) else { panic!("not data") };
        assert_eq!(seq, 2 + tick, "one datagram a tick, numbered in turn");
        assert_eq!(frames.last().map(|f| &f.payload), Some(&batch));
        assert!(!c.poll_transmit_into(&mut buf), "nothing else to send");
        assert!(buf.is_empty());
        assert_eq!(buf.as_ptr(), at, "the caller's buffer is reused");
        // The server ACKs it before the next tick: no resend timer is left, only the next ping.
        c.handle_datagram(&ack_of(seq), now + ms(10));
        c.tick(now + ms(10));
        let elapsed = (now + ms(10) - t).as_millis() as u64;
        assert_eq!(c.next_timeout(), Some(t + ms(2000 * (elapsed / 2000 + 1))));
    }
    // A NACKed datagram comes out of the same call (from the queue of ready datagrams).
    c.send_owned(b"\xfelast".to_vec(), now).expect("connected");
    assert!(c.poll_transmit_into(&mut buf));
    c.handle_datagram(&encode_ack_datagrams(FLAG_NACK, &[(102, 102)], 1400).remove(0), now);
    assert!(c.poll_transmit_into(&mut buf));
    let Ok(Datagram::Data { seq, frames }) = parse_datagram(&buf) else { panic!("not data") };
    assert_eq!((seq, frames[0].payload.as_slice()), (103, &b"\xfelast"[..]));
}

#[test]
fn ack_flush_is_coalesced_and_within_mtu() {
    let t = Instant::now();
    let (mut c, mut srv) = connect(t);
    // Every other datagram number from 1: 600 single records need several ACK datagrams.
    for _ in 0..600 {
        srv.deliver(&mut c, Reliability::Unreliable, b"\xfe", t);
        srv.seq += 1;
    }
    assert!(c.next_timeout() <= Some(t + ms(50)));
    c.tick(t + ms(50));
    let out = drain(&mut c);
    let acks: Vec<&Vec<u8>> = out.iter().filter(|d| d[0] & FLAG_ACK != 0).collect();
    assert!(acks.len() >= 2);
    assert!(acks.iter().all(|d| d.len() <= usize::from(c.mtu() - UDP_OVERHEAD)));
    assert_eq!(ack_ranges(&out, false).len(), 600);
}

#[test]
fn ack_interval_zero_acks_at_the_next_tick_and_nacks_after_the_delay() {
    let start = Instant::now();
    let (mut c, mut srv) = connect(start);
    // The handshake's ACK leaves on the default 50 ms timer.
    let t = start + ms(50);
    c.tick(t);
    assert_eq!(ack_ranges(&drain(&mut c), false), [(0, 0)]);
    // A caller that ticks once per 50 ms send pass: ACK at every tick, NACK a gap at the first
    // tick 40 ms after it was seen.
    c.set_ack_timing(Duration::ZERO, ms(40));
    let first = srv.seq;
    srv.deliver(&mut c, Reliability::Unreliable, b"\xfe", t);
    srv.seq += 1; // `first + 1` is lost
    srv.deliver(&mut c, Reliability::Unreliable, b"\xfe", t);
    assert_eq!(c.next_timeout(), Some(t), "the ACK is due at once");
    c.tick(t);
    let out = drain(&mut c);
    assert_eq!(ack_ranges(&out, false), [(first, first), (first + 2, first + 2)]);
    assert!(ack_ranges(&out, true).is_empty(), "the gap is too young to NACK");
    assert_eq!(c.next_timeout(), Some(t + ms(40)), "the next flush is when the gap is old enough");
    c.tick(t + ms(30));
    assert!(drain(&mut c).is_empty());
    c.tick(t + ms(50));
    let out = drain(&mut c);
    assert_eq!(ack_ranges(&out, true), [(first + 1, first + 1)]);
    assert!(ack_ranges(&out, false).is_empty());
    assert!(c.next_timeout() > Some(t + ms(50)), "nothing left to ACK or NACK: no flush is due");
}

// ---- loopback against a tiny server built from the same reliability layers ----

/// A deterministic xorshift PRNG, so failures reproduce.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
}

/// Server side of the loopback: our own Sender/Receiver playing the peer.
struct LoopServer {
    tx: Sender,
    rx: Receiver,
    received: Vec<Vec<u8>>,
    out: VecDeque<Vec<u8>>,
}

impl LoopServer {
    fn handle(&mut self, d: &[u8], now: Instant) {
        match parse_datagram(d) {
            Ok(Datagram::Ack(r)) => self.tx.on_ack(r, now),
            Ok(Datagram::Nack(r)) => self.tx.on_nack(r, now, &mut self.out),
            Ok(Datagram::Data { seq, frames }) => {
                if self.rx.receive_datagram(seq, now) {
                    for f in frames {
                        self.rx.receive_frame(f, &mut self.received);
                    }
                }
            }
            Err(e) => panic!("client sent garbage: {e}"),
        }
    }

    fn flush(&mut self, now: Instant) -> Vec<Vec<u8>> {
        let mut acks = self.rx.take_acks();
        let mut nacks = self.rx.take_nacks(now, ms(20));
        let mut out: Vec<Vec<u8>> = self.out.drain(..).collect();
        out.extend(encode_ack_datagrams(FLAG_ACK, &frame::coalesce(&mut acks), 1372));
        out.extend(encode_ack_datagrams(FLAG_NACK, &frame::coalesce(&mut nacks), 1372));
        let mut resend = VecDeque::new();
        self.tx.resend_due(now, &mut resend);
        out.extend(resend);
        while let Some(d) = self.tx.pack(1400, now, false) {
            out.push(d);
        }
        out
    }
}

/// Moves packets across a link that drops, duplicates and reorders.
fn lossy(rng: &mut Rng, queue: &mut Vec<Vec<u8>>) -> Vec<Vec<u8>> {
    let mut delivered = Vec::new();
    let mut keep = Vec::new();
    for p in queue.drain(..) {
        if rng.chance(10) {
            continue; // lost
        }
        if rng.chance(30) {
            keep.push(p); // delayed to a later step (reordering)
            continue;
        }
        if rng.chance(10) {
            delivered.push(p.clone()); // duplicated
        }
        delivered.push(p);
    }
    *queue = keep;
    // Shuffle what is delivered this step.
    for i in (1..delivered.len()).rev() {
        let j = rng.below(i as u64 + 1) as usize;
        delivered.swap(i, j);
    }
    delivered
}

#[test]
fn loopback_over_lossy_link_delivers_everything_in_order_once() {
    let t = Instant::now();
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut c = RakClient::new(config(), server(), t);
    drain(&mut c);
    c.handle_datagram(&reply1(SERVER_GUID, None, 1400), t);
    drain(&mut c);
    c.handle_datagram(&reply2(1400), t);
    let mut srv =
        LoopServer { tx: Sender::default(), rx: Receiver::default(), received: Vec::new(), out: VecDeque::new() };
    let mut to_server: Vec<Vec<u8>> = drain(&mut c);
    let mut to_client: Vec<Vec<u8>> = Vec::new();
    let mut server_sent = Vec::new();
    let mut client_sent = Vec::new();
    let mut client_got = Vec::new();
    let mut cra_sent = false;
    let mut now = t;
    for step in 0..4000 {
        now += ms(10);
        for d in lossy(&mut rng, &mut to_server) {
            srv.handle(&d, now);
        }
        if !cra_sent && srv.received.iter().any(|m| m[0] == 0x09) {
            srv.tx.queue(&cra_payload(0, 20), Reliability::Reliable, 0, 1400).expect("queue");
            cra_sent = true;
        }
        if c.is_connected() && step < 1500 && rng.chance(20) {
            let len = 1 + rng.below(4000) as usize;
            let msg: Vec<u8> = std::iter::once(0xfe).chain((1..len).map(|i| i as u8)).collect();
            srv.tx.queue(&msg, Reliability::ReliableOrdered, 0, 1400).expect("queue");
            server_sent.push(msg);
        }
        if c.is_connected() && step < 1500 && rng.chance(10) {
            let len = 1 + rng.below(3000) as usize;
            let msg: Vec<u8> = std::iter::once(0xfe).chain((1..len).map(|i| (i * 3) as u8)).collect();
            c.send(&msg, now).expect("connected");
            client_sent.push(msg);
        }
        to_client.extend(srv.flush(now));
        for d in lossy(&mut rng, &mut to_client) {
            c.handle_datagram(&d, now);
        }
        c.tick(now);
        to_server.extend(drain(&mut c));
        while let Some(e) = c.poll_event() {
            match e {
                RakEvent::Message(m) => client_got.push(m),
                RakEvent::Connected => {}
                RakEvent::Disconnected(r) => panic!("disconnected at step {step}: {r}"),
            }
        }
    }
    assert!(server_sent.len() > 100 && client_sent.len() > 50);
    assert_eq!(client_got, server_sent);
    let server_got: Vec<Vec<u8>> = srv.received.into_iter().filter(|m| m[0] == 0xfe).collect();
    assert_eq!(server_got, client_sent);
}

// ---- fuzzing ----

/// Valid server datagrams to mutate, so the fuzzer gets past the first checks.
fn corpus() -> Vec<Vec<u8>> {
    let mut srv = Srv::default();
    let mut v = vec![
        reply1(SERVER_GUID, None, 1400),
        reply1(SERVER_GUID, Some(5), 1200),
        reply2(1400),
        encode_ack_datagrams(FLAG_ACK, &[(0, 3), (5, 5)], 1400).remove(0),
        encode_ack_datagrams(FLAG_NACK, &[(1, 1)], 1400).remove(0),
    ];
    let cra = srv.frame(Reliability::Reliable, &cra_payload(0, 20));
    v.push(srv.dgram(&[cra]));
    for bits in 0..5 {
        let f = srv.frame(Reliability::from_bits(bits), b"\xfe\x01\x02");
        v.push(srv.dgram(&[f]));
    }
    for i in 0..3 {
        let mut f = srv.frame(Reliability::ReliableOrdered, b"\xfesplit");
        f.split = Some(SplitInfo { count: 3, id: 1, index: i });
        v.push(srv.dgram(&[f]));
    }
    for ch in [0u8, 5, 31, 40] {
        let mut f = srv.frame(Reliability::UnreliableSequenced, b"\xfeseq");
        f.order_channel = ch;
        let mut g = srv.frame(Reliability::ReliableOrdered, b"\xfeord");
        g.order_channel = ch;
        v.push(srv.dgram(&[f, g]));
    }
    let mut big = srv.frame(Reliability::Reliable, &[0xfe; 600]);
    big.split = Some(SplitInfo { count: 512, id: 3, index: 17 });
    v.push(srv.dgram(&[big]));
    v.push(srv.dgram(&[srv_frame_disconnect()]));
    let mut ping = vec![0x00];
    ping.put_i64_be(5);
    let f = srv.frame(Reliability::Unreliable, &ping);
    let g = srv.frame(Reliability::Reliable, &[0x04]);
    v.push(srv.dgram(&[f, g]));
    v
}

fn srv_frame_disconnect() -> Frame {
    let mut f = Frame::new(Reliability::ReliableOrdered, vec![id::DISCONNECTION_NOTIFICATION]);
    f.message_index = 0x100;
    f.order_index = 0x100;
    f
}

fn client_in_state(state: u64, t: Instant) -> RakClient {
    let mut c = RakClient::new(config(), server(), t);
    if state >= 1 {
        c.handle_datagram(&reply1(SERVER_GUID, Some(9), 1400), t);
    }
    if state >= 2 {
        c.handle_datagram(&reply2(1400), t);
    }
    if state >= 3 {
        let mut srv = Srv::default();
        srv.deliver(&mut c, Reliability::Reliable, &cra_payload(0, 20), t);
    }
    if state >= 4 {
        c.disconnect(t);
    }
    c
}

#[test]
fn fuzz_never_panics() {
    let t = Instant::now();
    let corpus = corpus();
    let mut rng = Rng(0x1234_5678_9abc_def1);
    let mut fed = 0usize;
    let mut messages = 0usize;
    // CLAWCRAFT_FUZZ_INPUTS: datagrams in all (the long run of tests/fuzz/long-run.sh).
    let per_state =
        std::env::var("CLAWCRAFT_FUZZ_INPUTS").ok().and_then(|v| v.parse::<u64>().ok()).map_or(25_000, |n| n / 5);
    for state in 0..5u64 {
        let mut c = client_in_state(state, t);
        let mut now = t;
        let mut next_seq = 1u32; // 0 was the CRA datagram
        for _ in 0..per_state {
            let mut d = if rng.chance(30) {
                let len = rng.below(1500) as usize;
                let mut d: Vec<u8> = (0..len).map(|_| rng.next() as u8).collect();
                if let Some(b) = d.first_mut()
                    && rng.chance(50)
                {
                    *b |= 0x80;
                }
                d
            } else {
                corpus[rng.below(corpus.len() as u64) as usize].clone()
            };
            for _ in 0..rng.below(4) {
                if !d.is_empty() {
                    let i = rng.below(d.len() as u64) as usize;
                    d[i] = rng.next() as u8;
                }
            }
            if rng.chance(10) {
                d.truncate(rng.below(d.len() as u64 + 1) as usize);
            }
            if rng.chance(5) {
                d.extend((0..rng.below(64)).map(|_| rng.next() as u8));
            }
            // Give most data datagrams a fresh sequence number so their (mutated) frames are
            // actually processed instead of being discarded as duplicates.
            if d.len() >= 4 && d[0] & 0xe0 == 0x80 && rng.chance(70) {
                d[1..4].copy_from_slice(&next_seq.to_le_bytes()[..3]);
                next_seq = (next_seq + 1 + u32::from(rng.chance(5))) & 0xff_ffff;
            }
            c.handle_datagram(&d, now);
            fed += 1;
            if rng.chance(5) {
                now += ms(rng.below(300));
                c.tick(now);
            }
            if c.is_connected() && rng.chance(2) {
                let len = 1 + rng.below(5000) as usize;
                let _ = c.send(&vec![0xfe; len], now);
            }
            drain(&mut c);
            messages += events(&mut c).iter().filter(|e| matches!(e, RakEvent::Message(_))).count();
            if c.is_closed() && state < 4 {
                c = client_in_state(state, now);
                next_seq = 1;
            }
        }
    }
    assert!(fed >= 100_000);
    // The fuzzer must get deep enough to deliver messages, or it only tests the first checks.
    assert!(messages > 1000, "only {messages} messages delivered");
}

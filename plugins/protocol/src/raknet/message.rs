//! Offline (unconnected) RakNet messages and the control messages that travel inside frames.
//!
//! Layouts follow go-raknet's `internal/message` package and RakLib (byte for byte).

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, SocketAddrV6};

use super::{RAKNET_PROTOCOL_VERSION, RakError, UDP_OVERHEAD};
use crate::io::{Reader, WriteExt};

/// Marks offline messages so stray UDP traffic is not mistaken for RakNet.
pub const OFFLINE_MAGIC: [u8; 16] =
    [0x00, 0xff, 0xff, 0x00, 0xfe, 0xfe, 0xfe, 0xfe, 0xfd, 0xfd, 0xfd, 0xfd, 0x12, 0x34, 0x56, 0x78];

/// RakNet message identifiers (first byte of an offline message or of a frame payload).
pub mod id {
    /// Connected keep-alive request.
    pub const CONNECTED_PING: u8 = 0x00;
    /// Server-list query.
    pub const UNCONNECTED_PING: u8 = 0x01;
    /// Server-list query, only answered when the server has free slots.
    pub const UNCONNECTED_PING_OPEN_CONNECTIONS: u8 = 0x02;
    /// Connected keep-alive answer.
    pub const CONNECTED_PONG: u8 = 0x03;
    /// Peer asks for a ping to check we are alive.
    pub const DETECT_LOST_CONNECTIONS: u8 = 0x04;
    /// MTU discovery probe.
    pub const OPEN_CONNECTION_REQUEST_1: u8 = 0x05;
    /// Answer to the MTU probe.
    pub const OPEN_CONNECTION_REPLY_1: u8 = 0x06;
    /// Second handshake step (MTU, cookie, addresses).
    pub const OPEN_CONNECTION_REQUEST_2: u8 = 0x07;
    /// Server accepted the second step; datagrams start.
    pub const OPEN_CONNECTION_REPLY_2: u8 = 0x08;
    /// First framed message of the client.
    pub const CONNECTION_REQUEST: u8 = 0x09;
    /// Server accepted the connection request.
    pub const CONNECTION_REQUEST_ACCEPTED: u8 = 0x10;
    /// Connection attempt failed (RakNet internal).
    pub const CONNECTION_ATTEMPT_FAILED: u8 = 0x11;
    /// Server thinks we are already connected.
    pub const ALREADY_CONNECTED: u8 = 0x12;
    /// Client's final handshake message.
    pub const NEW_INCOMING_CONNECTION: u8 = 0x13;
    /// Server is full.
    pub const NO_FREE_INCOMING_CONNECTIONS: u8 = 0x14;
    /// Peer is closing the connection.
    pub const DISCONNECTION_NOTIFICATION: u8 = 0x15;
    /// Connection lost (RakNet internal).
    pub const CONNECTION_LOST: u8 = 0x16;
    /// We are banned.
    pub const CONNECTION_BANNED: u8 = 0x17;
    /// Wrong RakNet protocol version.
    pub const INCOMPATIBLE_PROTOCOL_VERSION: u8 = 0x19;
    /// We reconnected too quickly.
    pub const IP_RECENTLY_CONNECTED: u8 = 0x1a;
    /// Server-list answer.
    pub const UNCONNECTED_PONG: u8 = 0x1c;
}

/// Whether `b` is a RakNet-level message id (as opposed to an application message like `0xFE`).
pub fn is_raknet_control(b: u8) -> bool {
    b <= id::UNCONNECTED_PONG
}

/// A short name for logs and error texts.
pub fn id_name(b: u8) -> &'static str {
    match b {
        id::ALREADY_CONNECTED => "AlreadyConnected",
        id::NO_FREE_INCOMING_CONNECTIONS => "NoFreeIncomingConnections",
        id::CONNECTION_BANNED => "ConnectionBanned",
        id::IP_RECENTLY_CONNECTED => "IpRecentlyConnected",
        id::CONNECTION_ATTEMPT_FAILED => "ConnectionAttemptFailed",
        id::CONNECTION_LOST => "ConnectionLost",
        _ => "unknown",
    }
}

/// Reads the id byte and checks it is `want`.
fn expect_id(r: &mut Reader<'_>, want: u8) -> Result<(), RakError> {
    let got = r.u8()?;
    if got != want {
        return Err(RakError::UnexpectedId(got));
    }
    Ok(())
}

/// Reads and checks the offline magic.
fn expect_magic(r: &mut Reader<'_>) -> Result<(), RakError> {
    if r.array::<16>()? != OFFLINE_MAGIC {
        return Err(RakError::BadMagic);
    }
    Ok(())
}

/// Writes a RakNet system address: IPv4 octets are bitwise-NOTed (a RakNet quirk), IPv6 uses the
/// `sockaddr_in6` layout with an LE family field.
pub fn write_address(out: &mut Vec<u8>, addr: &SocketAddr) {
    match addr {
        SocketAddr::V4(a) => {
            out.put_u8(4);
            for b in a.ip().octets() {
                out.put_u8(!b);
            }
            out.put_u16_be(a.port());
        }
        SocketAddr::V6(a) => {
            out.put_u8(6);
            out.put_u16_le(23); // AF_INET6 as Windows numbers it; RakNet writes the raw sockaddr.
            out.put_u16_be(a.port());
            out.put_u32_be(a.flowinfo());
            out.put_bytes(&a.ip().octets());
            out.put_u32_be(a.scope_id());
        }
    }
}

/// Reads a system address written by [`write_address`].
pub fn read_address(r: &mut Reader<'_>) -> Result<SocketAddr, RakError> {
    match r.u8()? {
        // Some implementations write 0 for an unset IPv4 address; go-raknet accepts it too.
        4 | 0 => {
            let b = r.array::<4>()?;
            let ip = Ipv4Addr::new(!b[0], !b[1], !b[2], !b[3]);
            let port = r.u16_be()?;
            Ok(SocketAddr::new(IpAddr::V4(ip), port))
        }
        6 => {
            let _family = r.u16_le()?;
            let port = r.u16_be()?;
            let flow = r.u32_be()?;
            let ip = Ipv6Addr::from(r.array::<16>()?);
            let scope = r.u32_be()?;
            Ok(SocketAddr::V6(SocketAddrV6::new(ip, port, flow, scope)))
        }
        v => Err(RakError::Invalid(format!("address version {v}"))),
    }
}

/// Encodes an UnconnectedPing (server-list query): `0x01 | i64 time | magic | u64 guid`.
pub fn encode_unconnected_ping(time_ms: i64, client_guid: u64) -> Vec<u8> {
    let mut out = Vec::with_capacity(33);
    out.put_u8(id::UNCONNECTED_PING);
    out.put_i64_be(time_ms);
    out.put_bytes(&OFFLINE_MAGIC);
    out.put_u64_be(client_guid);
    out
}

/// A parsed UnconnectedPong, i.e. a server-list entry.
///
/// The string is `MCPE;motd;protocol;version;online;max;server id;sub motd;gamemode;gamemode
/// num;port v4;port v6;` — every field after the motd is optional because third-party servers
/// often send fewer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pong {
    /// The time value of our ping, echoed back.
    pub ping_time: i64,
    /// The server's RakNet GUID.
    pub server_guid: u64,
    /// Edition tag, `MCPE` (or `MCEE` for Education Edition).
    pub edition: String,
    /// First MOTD line.
    pub motd: String,
    /// Bedrock network protocol number.
    pub protocol: Option<u32>,
    /// Game version such as `1.21.50`.
    pub game_version: Option<String>,
    /// Players online.
    pub players_online: Option<u32>,
    /// Player limit.
    pub max_players: Option<u32>,
    /// Server id field (often another GUID).
    pub server_id: Option<String>,
    /// Second MOTD line / level name.
    pub sub_motd: Option<String>,
    /// Game mode name, e.g. `Survival`.
    pub game_mode: Option<String>,
    /// IPv4 game port; clients switch to it when it differs from the queried port.
    pub port_v4: Option<u16>,
    /// IPv6 game port.
    pub port_v6: Option<u16>,
    /// The whole advertisement string.
    pub raw: String,
}

/// Parses an UnconnectedPong: `0x1c | i64 time | u64 guid | magic | u16 len | string`.
pub fn parse_unconnected_pong(data: &[u8]) -> Result<Pong, RakError> {
    let mut r = Reader::new(data);
    expect_id(&mut r, id::UNCONNECTED_PONG)?;
    let ping_time = r.i64_be()?;
    let server_guid = r.u64_be()?;
    expect_magic(&mut r)?;
    let len = usize::from(r.u16_be()?);
    // The string should be ASCII, but MOTDs routinely contain UTF-8 (colour codes); never fail on it.
    let raw = String::from_utf8_lossy(r.bytes(len)?).into_owned();
    let fields: Vec<&str> = raw.split(';').collect();
    let text = |i: usize| fields.get(i).map(|s| s.to_string()).filter(|s| !s.is_empty());
    let num = |i: usize| fields.get(i).and_then(|s| s.trim().parse::<u32>().ok());
    let port = |i: usize| fields.get(i).and_then(|s| s.trim().parse::<u16>().ok());
    Ok(Pong {
        ping_time,
        server_guid,
        edition: fields.first().map(|s| s.to_string()).unwrap_or_default(),
        motd: fields.get(1).map(|s| s.to_string()).unwrap_or_default(),
        protocol: num(2),
        game_version: text(3),
        players_online: num(4),
        max_players: num(5),
        server_id: text(6),
        sub_motd: text(7),
        game_mode: text(8),
        port_v4: port(10),
        port_v6: port(11),
        raw,
    })
}

/// Encodes OpenConnectionRequest1, zero-padded so the UDP payload is `mtu − 28` bytes: the
/// server infers our MTU from the size that got through.
pub fn encode_open_connection_request1(mtu: u16) -> Vec<u8> {
    let target = usize::from(mtu.saturating_sub(UDP_OVERHEAD));
    let mut out = Vec::with_capacity(target.max(18));
    out.put_u8(id::OPEN_CONNECTION_REQUEST_1);
    out.put_bytes(&OFFLINE_MAGIC);
    out.put_u8(RAKNET_PROTOCOL_VERSION);
    if out.len() < target {
        out.resize(target, 0);
    }
    out
}

/// A parsed OpenConnectionReply1.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reply1 {
    /// The server's GUID (0 from some DDoS-protection front ends).
    pub server_guid: u64,
    /// Anti-spoofing cookie, present when the server set its security flag; must be echoed.
    pub cookie: Option<u32>,
    /// MTU the server settled on.
    pub mtu: u16,
}

/// Parses OpenConnectionReply1: `0x06 | magic | u64 guid | bool security | [u32 cookie] | u16 mtu`.
pub fn parse_open_connection_reply1(data: &[u8]) -> Result<Reply1, RakError> {
    let mut r = Reader::new(data);
    expect_id(&mut r, id::OPEN_CONNECTION_REPLY_1)?;
    expect_magic(&mut r)?;
    let server_guid = r.u64_be()?;
    let security = r.bool()?;
    let cookie = if security { Some(r.u32_be()?) } else { None };
    let mtu = r.u16_be()?;
    Ok(Reply1 { server_guid, cookie, mtu })
}

/// Encodes OpenConnectionRequest2. When the server sent a cookie we echo it followed by a 0 byte
/// ("the client wrote no challenge"), exactly as RakNet's secure handshake expects.
pub fn encode_open_connection_request2(
    cookie: Option<u32>,
    server: &SocketAddr,
    mtu: u16,
    client_guid: u64,
) -> Vec<u8> {
    let mut out = Vec::with_capacity(64);
    out.put_u8(id::OPEN_CONNECTION_REQUEST_2);
    out.put_bytes(&OFFLINE_MAGIC);
    if let Some(c) = cookie {
        out.put_u32_be(c);
        out.put_u8(0);
    }
    write_address(&mut out, server);
    out.put_u16_be(mtu);
    out.put_u64_be(client_guid);
    out
}

/// A parsed OpenConnectionReply2.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reply2 {
    /// The server's GUID.
    pub server_guid: u64,
    /// Our address as the server sees it.
    pub client_addr: SocketAddr,
    /// Final MTU.
    pub mtu: u16,
    /// RakNet-level encryption (never used by Bedrock).
    pub encryption: bool,
}

/// Parses OpenConnectionReply2: `0x08 | magic | u64 guid | address | u16 mtu | bool encryption`.
pub fn parse_open_connection_reply2(data: &[u8]) -> Result<Reply2, RakError> {
    let mut r = Reader::new(data);
    expect_id(&mut r, id::OPEN_CONNECTION_REPLY_2)?;
    expect_magic(&mut r)?;
    let server_guid = r.u64_be()?;
    let client_addr = read_address(&mut r)?;
    let mtu = r.u16_be()?;
    // Some implementations omit the trailing flag; it is meaningless for Bedrock anyway.
    let encryption = if r.is_empty() { false } else { r.bool()? };
    Ok(Reply2 { server_guid, client_addr, mtu, encryption })
}

/// Parses IncompatibleProtocolVersion and returns the server's protocol version.
pub fn parse_incompatible_protocol(data: &[u8]) -> Result<u8, RakError> {
    let mut r = Reader::new(data);
    expect_id(&mut r, id::INCOMPATIBLE_PROTOCOL_VERSION)?;
    let version = r.u8()?;
    expect_magic(&mut r)?;
    Ok(version)
}

/// Encodes ConnectionRequest: `0x09 | u64 guid | i64 time | bool security(0)`.
pub fn encode_connection_request(client_guid: u64, time_ms: i64) -> Vec<u8> {
    let mut out = Vec::with_capacity(18);
    out.put_u8(id::CONNECTION_REQUEST);
    out.put_u64_be(client_guid);
    out.put_i64_be(time_ms);
    out.put_u8(0);
    out
}

/// A parsed ConnectionRequestAccepted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConnectionRequestAccepted {
    /// Our address as the server sees it.
    pub client_addr: SocketAddr,
    /// Server's index for us (unused).
    pub system_index: u16,
    /// Our ConnectionRequest time, echoed.
    pub request_time: i64,
    /// Server clock when it accepted.
    pub accepted_time: i64,
}

/// Maximum system addresses in ConnectionRequestAccepted / NewIncomingConnection.
const SYSTEM_ADDRESSES: usize = 20;

/// Parses ConnectionRequestAccepted. Servers send 10 or 20 system addresses, so addresses are
/// read until exactly the two trailing timestamps (16 bytes) remain.
pub fn parse_connection_request_accepted(data: &[u8]) -> Result<ConnectionRequestAccepted, RakError> {
    let mut r = Reader::new(data);
    expect_id(&mut r, id::CONNECTION_REQUEST_ACCEPTED)?;
    let client_addr = read_address(&mut r)?;
    let system_index = r.u16_be()?;
    let mut count = 0;
    while r.remaining() > 16 && count < SYSTEM_ADDRESSES {
        read_address(&mut r)?;
        count += 1;
    }
    let request_time = r.i64_be()?;
    let accepted_time = r.i64_be()?;
    Ok(ConnectionRequestAccepted { client_addr, system_index, request_time, accepted_time })
}

/// Encodes NewIncomingConnection: server address, 20 placeholder system addresses, the server's
/// accepted time (as "pong time") and our clock.
pub fn encode_new_incoming_connection(server: &SocketAddr, pong_time: i64, now_ms: i64) -> Vec<u8> {
    let mut out = Vec::with_capacity(1 + 29 + SYSTEM_ADDRESSES * 7 + 16);
    out.put_u8(id::NEW_INCOMING_CONNECTION);
    write_address(&mut out, server);
    let any = SocketAddr::new(IpAddr::V4(Ipv4Addr::UNSPECIFIED), 0);
    for _ in 0..SYSTEM_ADDRESSES {
        write_address(&mut out, &any);
    }
    out.put_i64_be(pong_time);
    out.put_i64_be(now_ms);
    out
}

/// Encodes ConnectedPing: `0x00 | i64 time`.
pub fn encode_connected_ping(time_ms: i64) -> Vec<u8> {
    let mut out = Vec::with_capacity(9);
    out.put_u8(id::CONNECTED_PING);
    out.put_i64_be(time_ms);
    out
}

/// Encodes ConnectedPong: `0x03 | i64 ping time (echo) | i64 pong time`.
pub fn encode_connected_pong(ping_time: i64, pong_time: i64) -> Vec<u8> {
    let mut out = Vec::with_capacity(17);
    out.put_u8(id::CONNECTED_PONG);
    out.put_i64_be(ping_time);
    out.put_i64_be(pong_time);
    out
}

/// Reads the time of a ConnectedPing, or the echoed ping time of a ConnectedPong.
pub fn parse_ping_time(data: &[u8]) -> Result<i64, RakError> {
    let mut r = Reader::new(data);
    r.u8()?;
    Ok(r.i64_be()?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::SocketAddrV4;

    #[test]
    fn ipv4_address_is_bitwise_not() {
        let a: SocketAddr = SocketAddrV4::new(Ipv4Addr::new(127, 0, 0, 1), 19132).into();
        let mut b = Vec::new();
        write_address(&mut b, &a);
        assert_eq!(b, [4, 0x80, 0xff, 0xff, 0xfe, 0x4a, 0xbc]);
        assert_eq!(read_address(&mut Reader::new(&b)), Ok(a));
    }

    #[test]
    fn ipv6_address_layout() {
        let a: SocketAddr = "[2001:db8::1]:19133".parse().expect("literal");
        let mut b = Vec::new();
        write_address(&mut b, &a);
        assert_eq!(b.len(), 29);
        assert_eq!(&b[..5], &[6, 23, 0, 0x4a, 0xbd]);
        assert_eq!(&b[9..11], &[0x20, 0x01]);
        assert_eq!(read_address(&mut Reader::new(&b)), Ok(a));
        assert!(read_address(&mut Reader::new(&[5, 1, 2])).is_err());
    }

    #[test]
    fn unconnected_ping_layout() {
        let p = encode_unconnected_ping(0x0102, 0xAABB);
        assert_eq!(p.len(), 33);
        assert_eq!(p[0], 0x01);
        assert_eq!(&p[1..9], &[0, 0, 0, 0, 0, 0, 1, 2]);
        assert_eq!(&p[9..25], &OFFLINE_MAGIC);
        assert_eq!(&p[31..], &[0xAA, 0xBB]);
    }

    fn pong_bytes(s: &str) -> Vec<u8> {
        let mut b = vec![0x1c];
        b.put_i64_be(7);
        b.put_u64_be(0x1234);
        b.put_bytes(&OFFLINE_MAGIC);
        b.put_u16_be(s.len() as u16);
        b.put_bytes(s.as_bytes());
        b
    }

    #[test]
    fn parses_full_pong() {
        let s = "MCPE;Dedicated Server;800;1.21.80;3;10;13253860892328930865;Bedrock level;Survival;1;19132;19133;0;";
        let p = parse_unconnected_pong(&pong_bytes(s)).expect("valid pong");
        assert_eq!(p.ping_time, 7);
        assert_eq!(p.server_guid, 0x1234);
        assert_eq!(p.edition, "MCPE");
        assert_eq!(p.motd, "Dedicated Server");
        assert_eq!(p.protocol, Some(800));
        assert_eq!(p.game_version.as_deref(), Some("1.21.80"));
        assert_eq!(p.players_online, Some(3));
        assert_eq!(p.max_players, Some(10));
        assert_eq!(p.sub_motd.as_deref(), Some("Bedrock level"));
        assert_eq!(p.game_mode.as_deref(), Some("Survival"));
        assert_eq!(p.port_v4, Some(19132));
        assert_eq!(p.port_v6, Some(19133));
        assert_eq!(p.raw, s);
    }

    #[test]
    fn parses_short_pong_and_rejects_garbage() {
        let p = parse_unconnected_pong(&pong_bytes("MCPE;§aHi;abc")).expect("short pong");
        assert_eq!(p.motd, "§aHi");
        assert_eq!(p.protocol, None);
        assert_eq!(p.port_v4, None);
        let mut bad = pong_bytes("MCPE;x");
        bad[20] ^= 1;
        assert_eq!(parse_unconnected_pong(&bad), Err(RakError::BadMagic));
        let good = pong_bytes("MCPE;x;1");
        for cut in 0..good.len() {
            assert!(parse_unconnected_pong(&good[..cut]).is_err());
        }
    }

    #[test]
    fn request1_padding() {
        let p = encode_open_connection_request1(1492);
        assert_eq!(p.len(), 1464);
        assert_eq!(p[17], RAKNET_PROTOCOL_VERSION);
        assert!(p[18..].iter().all(|&b| b == 0));
        assert_eq!(encode_open_connection_request1(576).len(), 548);
    }

    #[test]
    fn reply1_with_and_without_cookie() {
        let mut b = vec![0x06];
        b.put_bytes(&OFFLINE_MAGIC);
        b.put_u64_be(99);
        b.put_u8(0);
        b.put_u16_be(1400);
        assert_eq!(parse_open_connection_reply1(&b), Ok(Reply1 { server_guid: 99, cookie: None, mtu: 1400 }));
        let mut b = vec![0x06];
        b.put_bytes(&OFFLINE_MAGIC);
        b.put_u64_be(99);
        b.put_u8(1);
        b.put_u32_be(0xDEADBEEF);
        b.put_u16_be(1200);
        assert_eq!(
            parse_open_connection_reply1(&b),
            Ok(Reply1 { server_guid: 99, cookie: Some(0xDEADBEEF), mtu: 1200 })
        );
    }

    #[test]
    fn request2_echoes_cookie_with_trailing_zero() {
        let server: SocketAddr = "10.0.0.2:19132".parse().expect("literal");
        let p = encode_open_connection_request2(Some(0x01020304), &server, 1400, 5);
        assert_eq!(&p[17..22], &[1, 2, 3, 4, 0]);
        assert_eq!(p[22], 4);
        assert_eq!(p.len(), 1 + 16 + 5 + 7 + 2 + 8);
        let p = encode_open_connection_request2(None, &server, 1400, 5);
        assert_eq!(p.len(), 1 + 16 + 7 + 2 + 8);
        assert_eq!(&p[24..26], &1400u16.to_be_bytes());
    }

    #[test]
    fn connection_request_accepted_with_10_or_20_addresses() {
        let client: SocketAddr = "1.2.3.4:5".parse().expect("literal");
        for n in [10, 20] {
            let mut b = vec![0x10];
            write_address(&mut b, &client);
            b.put_u16_be(0);
            for _ in 0..n {
                write_address(&mut b, &client);
            }
            b.put_i64_be(11);
            b.put_i64_be(22);
            let a = parse_connection_request_accepted(&b).expect("valid");
            assert_eq!(a.client_addr, client);
            assert_eq!((a.request_time, a.accepted_time), (11, 22));
        }
    }

    #[test]
    fn new_incoming_connection_layout() {
        let server: SocketAddr = "1.2.3.4:19132".parse().expect("literal");
        let b = encode_new_incoming_connection(&server, 5, 6);
        assert_eq!(b.len(), 1 + 7 + 20 * 7 + 16);
        assert_eq!(b[0], 0x13);
    }
}

//! The login layer hand-encodes its few packets; the data-driven codec must read them the same
//! way (and so must the server, which uses minecraft-data's definitions too).

use clawcraft_protocol::codec::Protocol;
use clawcraft_protocol::framing::GameFramer;
use clawcraft_protocol::login::{LoginKeys, LoginParams, encode_login_packet, offline_login_tokens};
use clawcraft_protocol::packets::{Login, RequestNetworkSettings};
use clawcraft_protocol::session::{ClientSession, SessionConfig};

#[test]
fn hand_encoded_login_packets_decode_with_the_codec() {
    let protocol = Protocol::load("1.26.45").expect("bundled version");
    let mut session = ClientSession::new(SessionConfig {
        username: "Codec".into(),
        protocol_version: 2169,
        game_version: "1.26.45".into(),
        server_address: "127.0.0.1:19132".into(),
    });
    let first = session.start();
    let packets = GameFramer::new().decode_batch(&first).expect("plain first batch");
    assert_eq!(packets.len(), 1);
    let req: RequestNetworkSettings = protocol.decode_as(&packets[0]).expect("request_network_settings");
    assert_eq!(req.client_protocol, 2169);

    let keys = LoginKeys::generate();
    let params = LoginParams::new("Codec", 2169, "1.26.45", "127.0.0.1:19132");
    let (identity, client) = offline_login_tokens(&params, &keys).expect("tokens");
    let body = encode_login_packet(2169, &identity, &client);
    let login: Login = protocol.decode_as(&body).expect("login");
    assert_eq!(login.protocol_version, 2169);
    assert_eq!(login.tokens.identity, identity);
    assert_eq!(login.tokens.client, client);
    assert_eq!(protocol.encode(&login).expect("encode"), body, "both encoders agree byte for byte");
}

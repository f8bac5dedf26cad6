//! The login layer sends its packets through the data-driven codec; they must match the
//! independent hand-written layout of the Login packet byte for byte (the server decodes them
//! with minecraft-data's definitions too).

use std::sync::Arc;

use clawcraft_protocol::codec::Protocol;
use clawcraft_protocol::framing::GameFramer;
use clawcraft_protocol::login::{LoginKeys, LoginParams, encode_login_packet, offline_login_tokens};
use clawcraft_protocol::packets::{Login, LoginTokens, RequestNetworkSettings};
use clawcraft_protocol::session::{ClientSession, SessionConfig};

#[test]
fn login_layer_packets_match_the_hand_written_layout() {
    for info in Protocol::versions() {
        let protocol = Arc::new(Protocol::load(info.game_version).expect("bundled version"));
        let mut session = ClientSession::new(SessionConfig {
            username: "Codec".into(),
            protocol: protocol.clone(),
            server_address: "127.0.0.1:19132".into(),
        });
        let first = session.start().expect("start");
        let packets = GameFramer::new().decode_batch(&first).expect("plain first batch");
        assert_eq!(packets.len(), 1);
        let mut hand = vec![0xc1, 0x01];
        hand.extend(info.protocol.to_be_bytes());
        assert_eq!(packets[0], hand, "{}: request_network_settings", info.game_version);
        let req: RequestNetworkSettings = protocol.decode_as(&packets[0]).expect("request_network_settings");
        assert_eq!(req.client_protocol, info.protocol);

        let keys = LoginKeys::generate();
        let params = LoginParams::new("Codec", info.protocol, info.game_version, "127.0.0.1:19132");
        let (identity, client) = offline_login_tokens(&params, &keys).expect("tokens");
        let login = Login { protocol_version: info.protocol, tokens: LoginTokens { identity, client } };
        let body = protocol.encode(&login).expect("encode");
        let hand = encode_login_packet(info.protocol, &login.tokens.identity, &login.tokens.client);
        assert_eq!(body, hand, "{}: codec and hand-written layout agree byte for byte", info.game_version);
        assert_eq!(protocol.decode_as::<Login>(&body).expect("decode"), login);
    }
}

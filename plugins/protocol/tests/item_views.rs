//! The item and inventory typed views survive encode → decode with the bundled protocol, keep
//! the fields each action kind puts on the wire, and read item NBT (damage, enchantments).

use clawcraft_protocol::codec::{Nbt, NbtTag, Packet, Protocol, Value};
use clawcraft_protocol::packets::*;

/// Every supported version: the item layouts differ between them on the wire (the codec maps
/// them to these views).
fn protocols() -> Vec<Protocol> {
    Protocol::versions().iter().map(|v| Protocol::load(v.game_version).expect("bundled version")).collect()
}

/// Encode → decode at every version; the bytes of the decoded view encode identically
/// (transaction data is an untyped tree whose integer kinds may differ from a freshly built one,
/// so `==` on views is not the check there). Returns the view as the last version read it.
fn wire_round_trip<P: Packet>(p: &P) -> P {
    let mut last = None;
    for proto in protocols() {
        let bytes = proto.encode(p).expect("encode");
        let back: P = proto.decode_as(&bytes).expect("decode");
        assert_eq!(proto.encode(&back).expect("re-encode"), bytes, "{} bytes @ {}", P::NAME, proto.info().game_version);
        last = Some(back);
    }
    last.expect("at least one version")
}

fn round_trip<P: Packet + PartialEq + std::fmt::Debug>(p: &P) -> P {
    let mut last = None;
    for proto in protocols() {
        let bytes = proto.encode(p).expect("encode");
        let back: P = proto.decode_as(&bytes).expect("decode");
        assert_eq!(&back, p, "{} round trip @ {}", P::NAME, proto.info().game_version);
        last = Some(back);
    }
    last.expect("at least one version")
}

fn pickaxe(damage: i32, efficiency: i16) -> ItemInstance {
    let ench = NbtTag::List(
        10,
        vec![NbtTag::Compound(vec![("id".into(), NbtTag::Short(15)), ("lvl".into(), NbtTag::Short(efficiency))])],
    );
    ItemInstance {
        network_id: 320,
        count: 1,
        metadata: 0,
        has_stack_id: true,
        stack_id: Some(17),
        block_runtime_id: 0,
        extra: ItemExtra {
            has_nbt: "true".into(),
            nbt: Some(ItemNbt {
                version: 1,
                nbt: Nbt {
                    name: String::new(),
                    tag: NbtTag::Compound(vec![("Damage".into(), NbtTag::Int(damage)), ("ench".into(), ench)]),
                },
            }),
            ..ItemExtra::default()
        },
    }
}

#[test]
fn inventory_content_and_slot_round_trip_with_nbt_and_air() {
    let content = InventoryContent {
        window_id: "inventory".into(),
        input: vec![
            pickaxe(7, 5),
            ItemInstance::air(),
            ItemInstance { network_id: 3, count: 12, ..ItemInstance::default() },
        ],
        container: FullContainerName::of("anvil_input"),
        storage_item: ItemInstance::air(),
    };
    let back = round_trip(&content);
    assert_eq!(back.input[0].tag_int("Damage"), Some(7));
    assert_eq!(back.input[0].enchantments(), vec![(15, 5)]);
    assert!(back.input[1].is_air());
    round_trip(&InventorySlot {
        window_id: "armor".into(),
        slot: 2,
        container: Some(FullContainerName::of("armor")),
        storage_item: Some(ItemInstance::air()),
        item: pickaxe(0, 1),
    });
}

#[test]
fn an_air_item_with_empty_user_data_decodes_as_air() {
    // gophertunnel writes air's user data with length 0; minecraft-data writes a 10-byte blob.
    for proto in protocols() {
        let mut bytes = proto
            .encode(&MobEquipment { runtime_entity_id: 7, window_id: "inventory".into(), ..MobEquipment::default() })
            .expect("encode");
        let full = bytes.clone();
        // header, runtime id (7), item: i16 id, u16 count, varint meta, bool, varint block id, then the blob
        let blob_at = 1 + 1 + 2 + 2 + 1 + 1 + 1;
        assert_eq!(full[blob_at], 10, "minecraft-data's 10-byte air blob");
        bytes.splice(blob_at..blob_at + 11, [0u8]);
        let e: MobEquipment = proto.decode_as(&bytes).expect("decode");
        assert!(e.item.is_air());
        assert_eq!(e.window_id, "inventory");
    }
}

#[test]
fn stack_requests_keep_each_action_kinds_fields() {
    let slot = |c: &str, s: u8, id: i32| Some(StackSlot { slot_type: FullContainerName::of(c), slot: s, stack_id: id });
    let req = ItemStackRequest {
        requests: vec![StackRequest {
            request_id: -3,
            actions: vec![
                StackAction {
                    type_id: "place".into(),
                    legacy_type_id: 1,
                    count: Some(4),
                    source: slot("inventory", 12, 9),
                    destination: slot("hotbar", 0, 0),
                    ..StackAction::default()
                },
                StackAction {
                    type_id: "swap".into(),
                    legacy_type_id: 2,
                    source: slot("hotbar", 1, 3),
                    destination: slot("inventory", 20, 4),
                    ..StackAction::default()
                },
                StackAction {
                    type_id: "drop".into(),
                    legacy_type_id: 3,
                    count: Some(1),
                    source: slot("hotbar", 2, 5),
                    randomly: Some(false),
                    ..StackAction::default()
                },
                StackAction {
                    type_id: "mine_block".into(),
                    legacy_type_id: 11,
                    hotbar_slot: Some(0),
                    predicted_durability: Some(8),
                    network_id: Some(17),
                    ..StackAction::default()
                },
            ],
            custom_names: vec![],
            cause: "chat_public".into(),
        }],
    };
    for proto in protocols() {
        let bytes = proto.encode(&req).expect("encode");
        let (_, value) = proto.decode(&bytes).expect("generic decode");
        let first = value.get("requests").and_then(|r| match r {
            Value::Array(a) => a.first().cloned(),
            _ => None,
        });
        let actions = first.as_ref().and_then(|r| r.get("actions")).cloned().expect("actions");
        let Value::Array(actions) = actions else { panic!("actions array") };
        assert_eq!(actions[2].get("randomly"), Some(&Value::Bool(false)));
        assert!(actions[1].get("count").is_none(), "swap carries no count");
        let back: ItemStackRequest = proto.decode_as(&bytes).expect("typed decode");
        assert_eq!(back.requests[0].actions[0].count, Some(4));
        assert_eq!(back.requests[0].actions[3].predicted_durability, Some(8));
        assert_eq!(back.requests[0].actions[1].destination, slot("inventory", 20, 4));
    }
}

#[test]
fn stack_responses_round_trip() {
    round_trip(&ItemStackResponse {
        responses: vec![
            StackResponse {
                status: "ok".into(),
                request_id: -1,
                containers: Some(vec![ResponseContainer {
                    slot_type: FullContainerName::of("hotbar"),
                    slots: vec![ResponseSlot {
                        slot: 0,
                        hotbar_slot: 0,
                        count: 3,
                        item_stack_id: Some(41),
                        ..ResponseSlot::default()
                    }],
                }]),
            },
            StackResponse { status: "error".into(), request_id: -3, ..StackResponse::default() },
        ],
    });
}

#[test]
fn transactions_round_trip_per_kind() {
    let use_on_block = InventoryTransaction::item_use(&UseItem {
        action_type: "click_block".into(),
        trigger_type: "player_input".into(),
        block_position: BlockPos { x: 1, y: -61, z: 2 },
        face: 1,
        hotbar_slot: 3,
        hand: "main_hand".into(),
        held_item: pickaxe(1, 1).to_stack(),
        player_pos: Vec3 { x: 0.5, y: -58.38, z: 0.5 },
        click_pos: Vec3 { x: 0.5, y: 1.0, z: 0.5 },
        block_runtime_id: 0xdead_beef,
        client_prediction: "success".into(),
        client_cooldown_state: "off".into(),
    });
    let back = wire_round_trip(&use_on_block);
    // The held item is an untyped tree in the use-item view: compare it typed.
    let typed =
        |t: &InventoryTransaction| t.use_item_data().map(|d| (ItemInstance::of_stack(&d.held_item), d.face, d.hand));
    assert_eq!(typed(&back), Some((pickaxe(1, 1), 1, "main_hand".into())), "typed data survives");
    assert_eq!(back.use_item_data().map(|d| (d.face, d.block_runtime_id)), Some((1, 0xdead_beef)));
    assert!(back.use_on_entity_data().is_none(), "another kind");
    let attack = InventoryTransaction::use_on_entity(&UseOnEntityData {
        entity_runtime_id: 99,
        action_type: "attack".into(),
        hotbar_slot: 0,
        held_item: ItemInstance::air(),
        player_pos: Vec3 { x: 1.0, y: 2.0, z: 3.0 },
        click_pos: Vec3::default(),
    });
    let back = wire_round_trip(&attack);
    assert_eq!(back.use_on_entity_data().map(|d| (d.entity_runtime_id, d.action_type)), Some((99, "attack".into())));
    let release = InventoryTransaction::release(&ReleaseData {
        action_type: "release".into(),
        hotbar_slot: 1,
        held_item: ItemInstance::air(),
        head_pos: Vec3 { x: 0.0, y: 1.0, z: 0.0 },
    });
    assert_eq!(wire_round_trip(&release).release_data().map(|d| d.head_pos.y), Some(1.0));
    let normal = InventoryTransaction::normal(vec![TransactionAction {
        source_type: "container".into(),
        window_id: Some(119),
        slot: 0,
        old_item: pickaxe(0, 1).to_stack(),
        new_item: ItemInstance::air().to_stack(),
        ..TransactionAction::default()
    }]);
    let back = wire_round_trip(&normal);
    assert_eq!(back.transaction.actions[0].window_id, Some(119));
    assert_eq!(ItemInstance::of_stack(&back.transaction.actions[0].old_item), pickaxe(0, 1), "the item, NBT and all");
}

#[test]
fn small_item_packets_round_trip() {
    round_trip(&PlayerHotbar { selected_slot: 4, window_id: "inventory".into(), select_slot: true });
    round_trip(&CompletedUsingItem { used_item_id: 261, use_method: "eat".into() });
    round_trip(&Animate {
        action_id: "swing_arm".into(),
        runtime_entity_id: 7,
        data: 0.0,
        has_swing_source: true,
        swing_source: Some("attack".into()),
    });
    round_trip(&Interact {
        action_id: "open_inventory".into(),
        target_entity_id: 7,
        has_position: false,
        position: None,
    });
    round_trip(&ContainerOpen {
        window_id: "inventory".into(),
        window_type: "inventory".into(),
        coordinates: BlockPos { x: 0, y: -60, z: 0 },
        runtime_entity_id: -1,
    });
    round_trip(&ContainerClose { window_id: "inventory".into(), window_type: "inventory".into(), server: false });
}

#[test]
fn crafting_data_reads_the_same_recipes_at_every_version() {
    let item = |id: i32, count: u16| RecipeItem { network_id: id, count, ..RecipeItem::default() };
    let data = CraftingData {
        shaped_recipes: vec![ShapedRecipe {
            recipe_id: "minecraft:stick".into(),
            width: 1,
            height: 2,
            input: vec![
                RecipeIngredient::tagged("minecraft:planks", 1),
                RecipeIngredient::tagged("minecraft:planks", 1),
            ],
            output: vec![item(320, 4)],
            uuid: "00000000-0000-4000-8000-000000000008".into(),
            block: "crafting_table".into(),
            network_id: 8,
            ..ShapedRecipe::default()
        }],
        shapeless_recipes: vec![ShapelessRecipe {
            recipe_id: "minecraft:oak_planks".into(),
            input: vec![RecipeIngredient::named("minecraft:oak_log", 1)],
            output: vec![item(5, 4)],
            uuid: "00000000-0000-4000-8000-000000000009".into(),
            block: "crafting_table".into(),
            network_id: 9,
            ..ShapelessRecipe::default()
        }],
        clear_recipes: true,
        ..CraftingData::default()
    };
    for proto in protocols() {
        let bytes = proto.encode(&data).expect("encode");
        let back: CraftingData = proto.decode_as(&bytes).expect("decode");
        let v = proto.info().game_version;
        assert_eq!(back.shaped_recipes[0].input, data.shaped_recipes[0].input, "{v}");
        assert_eq!(back.shaped_recipes[0].output[0].count, 4, "{v}");
        assert_eq!(back.shapeless_recipes[0].input[0].name.as_deref(), Some("minecraft:oak_log"), "{v}");
        assert_eq!((back.shapeless_recipes[0].network_id, back.clear_recipes), (9, true), "{v}");
    }
}

#[test]
fn craft_actions_name_results_by_id_before_1_26_40_and_by_name_after() {
    let result = ResultItem {
        kind: "name".into(),
        name: "minecraft:stick".into(),
        network_id: 320,
        count: 4,
        ..ResultItem::default()
    };
    let tag = AutoIngredient {
        kind: "item_tag".into(),
        tag: Some("minecraft:planks".into()),
        count: 2,
        ..AutoIngredient::default()
    };
    let req = ItemStackRequest {
        requests: vec![StackRequest {
            request_id: -5,
            actions: vec![StackAction::craft_auto(8, 2, &[tag]), StackAction::results(&[result], 2)],
            ..StackRequest::default()
        }],
    };
    for proto in protocols() {
        let bytes = proto.encode(&req).expect("encode");
        let (_, v) = proto.decode(&bytes).expect("decode");
        let Some(Value::Array(reqs)) = v.get("requests") else { panic!("requests") };
        let Some(Value::Array(actions)) = reqs[0].get("actions") else { panic!("actions") };
        assert_eq!(actions[0].get("times_crafted").and_then(Value::as_u64), Some(2));
        let Some(Value::Array(items)) = actions[1].get("result_items") else { panic!("results") };
        let Some(Value::Array(ings)) = actions[0].get("ingredients") else { panic!("ingredients") };
        assert_eq!(ings[0].get("tag").and_then(Value::as_str), Some("minecraft:planks"));
        let old = proto.info().game_version < "1.26.40";
        if old {
            assert_eq!(
                actions[0].get("times_crafted_2").and_then(Value::as_u64),
                Some(2),
                "counted twice before 1.26.40"
            );
            assert_eq!(items[0].get("network_id").and_then(Value::as_i64), Some(320));
        } else {
            assert_eq!(items[0].get("name").and_then(Value::as_str), Some("minecraft:stick"));
        }
        assert_eq!(items[0].get("count").and_then(Value::as_i64), Some(4));
    }
}

//! CraftingData figures, printed as JSON: decoding a vanilla-sized recipe list (1700 recipes:
//! shaped 3×3 patterns with tags and names, shapeless ones) into the typed view — at 1.26.45
//! (the views' layout) and 1.26.20 (one tagged list, rewritten by the dialect) — and building the
//! bot's recipe book from it. Run with `cargo bench --bench crafting`.

use std::time::Instant;

use clawcraft::protocol::codec::Protocol;
use clawcraft::protocol::packets::{
    CraftingData, ItemState, RecipeIngredient, RecipeItem, ShapedRecipe, ShapelessRecipe,
};
use clawcraft_containers::Recipes;
use clawcraft_inventory::ItemIds;

const RECIPES: u32 = 1700;

fn data() -> CraftingData {
    let item = |i: u32| format!("minecraft:item_{}", i % 900);
    let uuid = |n: u32| format!("00000000-0000-4000-8000-{n:012x}");
    let out = |i: u32| {
        vec![RecipeItem { network_id: i32::try_from(i % 900).unwrap_or(0) + 1, count: 1, ..RecipeItem::default() }]
    };
    let mut d = CraftingData { clear_recipes: true, ..CraftingData::default() };
    for n in 0..RECIPES {
        if n % 2 == 0 {
            let input = (0..9)
                .map(|c| match c % 3 {
                    0 => RecipeIngredient::tagged("minecraft:planks", 1),
                    1 => RecipeIngredient::named(&item(n + c), 1),
                    _ => RecipeIngredient::empty(),
                })
                .collect();
            d.shaped_recipes.push(ShapedRecipe {
                recipe_id: format!("minecraft:recipe_{n}"),
                width: 3,
                height: 3,
                input,
                output: out(n),
                uuid: uuid(n),
                block: "crafting_table".into(),
                network_id: n + 1,
                ..ShapedRecipe::default()
            });
        } else {
            d.shapeless_recipes.push(ShapelessRecipe {
                recipe_id: format!("minecraft:recipe_{n}"),
                input: vec![RecipeIngredient::named(&item(n), 2), RecipeIngredient::tagged("minecraft:logs", 1)],
                output: out(n),
                uuid: uuid(n),
                block: "crafting_table".into(),
                network_id: n + 1,
                ..ShapelessRecipe::default()
            });
        }
    }
    d
}

fn median_us(mut f: impl FnMut(), runs: usize) -> f64 {
    let mut v: Vec<f64> = (0..runs)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed().as_secs_f64() * 1e6
        })
        .collect();
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let d = data();
    let mut ids = ItemIds::new("1.26.45");
    let states: Vec<ItemState> = (0..901)
        .map(|i| ItemState {
            name: format!("minecraft:item_{i}"),
            runtime_id: i16::try_from(i + 1).unwrap_or(0),
            ..ItemState::default()
        })
        .collect();
    ids.extend(&states);
    let mut figures = serde_json::Map::new();
    for version in ["1.26.45", "1.26.20"] {
        let proto = Protocol::load(version).expect("version");
        let bytes = proto.encode(&d).expect("encode");
        let decode = median_us(
            || {
                let v: CraftingData = proto.decode_as(&bytes).expect("decode");
                std::hint::black_box(v);
            },
            30,
        );
        figures.insert(
            version.into(),
            serde_json::json!({"bytes": bytes.len(), "decode_us": decode.round(), "recipes_per_ms": (f64::from(RECIPES) / decode * 1000.0).round()}),
        );
    }
    let book = median_us(
        || {
            let mut r = Recipes::default();
            r.apply(&d, &ids);
            std::hint::black_box(r);
        },
        30,
    );
    figures.insert("recipe_book_us".into(), serde_json::json!(book.round()));
    println!("{}", serde_json::Value::Object(figures));
}

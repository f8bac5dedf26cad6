//! The page: plain HTML, CSS and JavaScript, embedded in the binary (no build step).

pub const HTML: &str = include_str!("../page/index.html");
pub const JS: &str = include_str!("../page/map.js");
pub const CSS: &str = include_str!("../page/map.css");

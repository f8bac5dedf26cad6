//! Commands as MCP tools: the tool list is generated from the [`CommandRegistry`], and command
//! responses become tool results.

use std::collections::HashMap;
use std::sync::Arc;

use clawcraft_core::{CommandEntry, CommandRegistry};
use rmcp::model::{CallToolResult, ContentBlock, JsonObject, MetaObject, Tool, ToolAnnotations};
use serde_json::{Map, Value, json};

/// Every tool, made once from the registry when the bot starts.
#[derive(Debug, Clone)]
pub struct Catalog {
    pub tools: Vec<Tool>,
    /// By tool name: the completion event of commands that start an async action.
    completion: HashMap<String, &'static str>,
    /// Every event type, for the warnings of `clawcraft://events?types=…`.
    pub event_names: Vec<&'static str>,
}

impl Catalog {
    pub fn new(registry: &CommandRegistry) -> Self {
        let tools = registry.entries().map(tool_for).collect();
        let completion =
            registry.entries().filter_map(|e| e.async_info.map(|a| (e.name.to_owned(), a.completion_event))).collect();
        Self { tools, completion, event_names: Vec::new() }
    }

    /// Knows the event types of `events`.
    pub fn with_events(mut self, events: &clawcraft_core::EventRegistry) -> Self {
        self.event_names = events.events.keys().copied().collect();
        self
    }

    pub fn get(&self, name: &str) -> Option<&Tool> {
        self.tools.iter().find(|t| t.name == name)
    }

    /// The event that ends the action `name` starts, for async commands.
    pub fn completion_event(&self, name: &str) -> Option<&'static str> {
        self.completion.get(name).copied()
    }

    /// Every completion event name.
    pub fn completion_events(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.completion.values().copied()
    }
}

/// The tool for one command: its name, summary (with the example and, for async commands, how
/// completion is reported), parameters as input schema, response as output schema.
pub fn tool_for(entry: &CommandEntry) -> Tool {
    let mut description = format!("{} Example: {}", entry.summary, entry.example);
    if let Some(a) = entry.async_info {
        description.push_str(&format!(
            " Async: answers at once; the action ends with one `{}` event carrying this call's id \
             (in clawcraft://events and its notifications). With a progressToken the call waits for \
             it, reporting progress. `{}` stops it.",
            a.completion_event, a.abort
        ));
    }
    if entry.needs_spawn {
        description.push_str(" Needs a spawned bot.");
    }
    let mut meta = Map::new();
    meta.insert("clawcraft/query".into(), Value::Bool(entry.query));
    if let Some(a) = entry.async_info {
        meta.insert(
            "clawcraft/async".into(),
            json!({"slot": a.slot, "completionEvent": a.completion_event, "abort": a.abort}),
        );
    }
    let annotations = ToolAnnotations::with_title(entry.name).read_only(entry.query);
    let input = input_schema(entry.params_schema(), entry.per_bot, entry.async_info.is_some());
    Tool::new(entry.name, description, Arc::new(input))
        .with_raw_output_schema(Arc::new(output_schema(entry.response_schema())))
        .with_annotations(annotations)
        .with_meta(MetaObject(meta))
}

/// The parameters' schema as MCP wants it: an object schema at the root, with the optional
/// request `id` every command takes (as on a request line) and, for a command of one bot
/// (`per_bot`), the optional `bot` that names it; a command that starts an action (`is_async`)
/// takes `wait`.
pub fn input_schema(params: &Value, per_bot: bool, is_async: bool) -> JsonObject {
    let mut schema = match params {
        Value::Object(m) => m.clone(),
        _ => Map::new(),
    };
    schema.entry("type").or_insert_with(|| Value::from("object"));
    let props = schema.entry("properties").or_insert_with(|| Value::Object(Map::new()));
    if let Value::Object(props) = props {
        props.entry("id").or_insert_with(|| {
            json!({"description": "Request id (string or number), echoed in the result's _meta and in the completion event of an async action; one is picked when omitted", "type": ["string", "integer"]})
        });
        if is_async {
            props.entry("wait").or_insert_with(|| {
                json!({"description": "Answer when the action ends, with its completion event under `completion` (true: up to 10 minutes; a number: at most that many ms, then the answer says it is still running and names its abort)", "type": ["boolean", "integer"]})
            });
        }
        if per_bot {
            props.entry("bot").or_insert_with(|| {
                json!({"description": "The bot this call is for, by username (case-insensitive); needed when the process runs several bots (the `bots` tool lists them)", "type": "string"})
            });
        }
    }
    tidy_properties(&mut schema);
    strip_numeric_formats(&mut schema);
    schema
}

/// The response's schema as MCP wants it (an object schema at the root), in the shape the command
/// path writes: an object's fields as they are, nothing for `null`, any other value under
/// `result` (as on a response line).
pub fn output_schema(response: &Value) -> JsonObject {
    let Value::Object(schema) = response else { return object_schema() };
    let types = schema_types(schema);
    let object_like = types.iter().any(|t| t == "object")
        || schema.contains_key("properties")
        || (types.is_empty() && ["anyOf", "oneOf", "allOf"].iter().any(|k| schema.contains_key(*k)));
    if object_like {
        let mut out = schema.clone();
        out.insert("type".into(), Value::from("object"));
        tidy_properties(&mut out);
        strip_numeric_formats(&mut out);
        return out;
    }
    if types == ["null"] {
        return object_schema();
    }
    // Keep `$schema` and the definitions at the root, where `$ref`s point.
    let mut inner = schema.clone();
    let mut out = object_schema();
    for key in ["$schema", "$defs", "definitions"] {
        if let Some(v) = inner.remove(key) {
            out.insert(key.into(), v);
        }
    }
    out.insert("properties".into(), json!({"result": inner}));
    out.insert("required".into(), json!(["result"]));
    strip_numeric_formats(&mut out);
    out
}

/// The Rust integer and float names schemars writes as `format` (`uint64`, `double`, …) are not
/// JSON Schema formats: validators warn about every one of them. The type and the bounds
/// (`minimum`, `maximum`) already say the same.
fn strip_numeric_formats(schema: &mut JsonObject) {
    const RUST_FORMATS: &[&str] = &[
        "int", "int8", "int16", "int32", "int64", "int128", "uint", "uint8", "uint16", "uint32", "uint64", "uint128",
        "float", "double",
    ];
    if schema.get("format").and_then(Value::as_str).is_some_and(|f| RUST_FORMATS.contains(&f)) {
        schema.remove("format");
    }
    for value in schema.values_mut() {
        match value {
            Value::Object(inner) => strip_numeric_formats(inner),
            Value::Array(items) => {
                for item in items.iter_mut() {
                    if let Value::Object(inner) = item {
                        strip_numeric_formats(inner);
                    }
                }
            }
            _ => {}
        }
    }
}

fn object_schema() -> JsonObject {
    let mut m = Map::new();
    m.insert("type".into(), Value::from("object"));
    m
}

fn schema_types(schema: &JsonObject) -> Vec<String> {
    match schema.get("type") {
        Some(Value::String(t)) => vec![t.clone()],
        Some(Value::Array(ts)) => ts.iter().filter_map(|t| t.as_str().map(String::from)).collect(),
        _ => Vec::new(),
    }
}

/// Boolean schemas (`true` for a field of any JSON value) become their object forms: clients
/// check that every property schema is an object.
fn tidy_properties(schema: &mut JsonObject) {
    let Some(Value::Object(props)) = schema.get_mut("properties") else { return };
    for p in props.values_mut() {
        match p {
            Value::Bool(true) => *p = json!({}),
            Value::Bool(false) => *p = json!({"not": {}}),
            _ => {}
        }
    }
}

/// A response line as a tool result: the fields as structured content (without `type` and `id`),
/// the line itself as text (what a stdin agent would read), the request id in `_meta`
/// (`clawcraft/id`). An error response is a tool error (`isError`) whose text is the error line
/// and whose `_meta` carries the stable `clawcraft/code`; it has no structured content, which
/// clients would check against the output schema of a success.
pub fn call_result(line: &str) -> CallToolResult {
    let mut fields = match serde_json::from_str::<Value>(line) {
        Ok(Value::Object(m)) => m,
        _ => Map::new(),
    };
    fields.remove("type");
    let id = fields.remove("id").unwrap_or(Value::Null);
    let mut meta = Map::new();
    meta.insert("clawcraft/id".into(), id);
    let error = match (fields.get("error"), fields.get("code")) {
        (Some(Value::String(e)), Some(Value::String(c))) => Some((e.clone(), c.clone())),
        _ if fields.is_empty() && !line.trim_start().starts_with('{') => {
            Some(("the command path returned an unreadable response".into(), "INTERNAL".into()))
        }
        _ => None,
    };
    if let Some((message, code)) = error {
        meta.insert("clawcraft/code".into(), Value::String(code.clone()));
        let text = if line.trim_start().starts_with('{') {
            line.to_owned()
        } else {
            json!({"type": "response", "error": message, "code": code}).to_string()
        };
        return CallToolResult::error(vec![ContentBlock::text(text)]).with_meta(Some(MetaObject(meta)));
    }
    // A picture (`render`, `map_image`): the PNG as image content, so a multimodal client shows
    // it; the text is the line without the base64 (structured content keeps it whole).
    let image = match fields.get(IMAGE_FIELD) {
        Some(Value::String(png)) if !png.is_empty() => Some(png.clone()),
        _ => None,
    };
    let text = match &image {
        Some(_) => {
            let mut shown = fields.clone();
            shown.insert(IMAGE_FIELD.into(), Value::String("(the image content)".into()));
            let mut line = Map::new();
            line.insert("type".into(), Value::String("response".into()));
            line.insert("id".into(), meta["clawcraft/id"].clone());
            line.extend(shown);
            Value::Object(line).to_string()
        }
        None => line.to_owned(),
    };
    let mut result = CallToolResult::structured(Value::Object(fields));
    result.content = vec![ContentBlock::text(text)];
    if let Some(png) = image {
        result.content.push(ContentBlock::image(png, "image/png"));
    }
    result.with_meta(Some(MetaObject(meta)))
}

/// The answer field holding a base64 PNG.
const IMAGE_FIELD: &str = "png_base64";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn output_schemas_are_objects_in_the_response_line_shape() {
        let obj = json!({"$schema": "s", "type": "object", "properties": {"a": true, "b": {"type": "string"}}});
        let out = output_schema(&obj);
        assert_eq!(out["type"], "object");
        assert_eq!(out["properties"]["a"], json!({}), "boolean property schemas become objects");
        assert_eq!(out["properties"]["b"], json!({"type": "string"}));

        let arr = json!({"$schema": "s", "type": "array", "items": {"$ref": "#/$defs/X"}, "$defs": {"X": {}}});
        let out = output_schema(&arr);
        assert_eq!(out["type"], "object");
        assert_eq!(out["required"], json!(["result"]));
        assert_eq!(out["properties"]["result"]["type"], "array");
        assert!(out.contains_key("$defs") && out.contains_key("$schema"), "definitions stay at the root");
        assert!(!out["properties"]["result"].as_object().is_some_and(|r| r.contains_key("$defs")));

        assert_eq!(Value::Object(output_schema(&json!({"type": "null"}))), json!({"type": "object"}));
        let formats = json!({"type": "object", "properties": {
            "n": {"type": "integer", "format": "uint64", "minimum": 0},
            "when": {"type": "string", "format": "date-time"},
            "list": {"type": "array", "items": {"anyOf": [{"type": "number", "format": "double"}]}}
        }});
        let out = Value::Object(output_schema(&formats));
        assert_eq!(out["properties"]["n"], json!({"type": "integer", "minimum": 0}), "Rust type names are not formats");
        assert_eq!(out["properties"]["when"]["format"], "date-time", "real formats stay");
        assert_eq!(out["properties"]["list"]["items"]["anyOf"][0], json!({"type": "number"}));
        let any = json!({"anyOf": [{"type": "object", "properties": {}}, {"type": "object"}]});
        let out = output_schema(&any);
        assert_eq!(out["type"], "object");
        assert!(out.contains_key("anyOf"));
    }

    #[test]
    fn input_schemas_get_an_object_root() {
        let s =
            input_schema(&json!({"title": "X", "properties": {"v": true}, "additionalProperties": false}), true, true);
        assert_eq!(s["properties"]["wait"]["type"], json!(["boolean", "integer"]), "an action's tool takes wait");
        assert_eq!(s["type"], "object");
        assert_eq!(s["properties"]["v"], json!({}));
        assert_eq!(s["properties"]["id"]["type"], json!(["string", "integer"]), "every tool takes the request id");
        assert_eq!(s["properties"]["bot"]["type"], "string", "a command of one bot takes its name");
        let bare = input_schema(&Value::Null, false, false);
        assert!(bare["properties"].get("wait").is_none());
        assert_eq!(bare["type"], "object");
        assert!(bare["properties"].get("id").is_some());
        assert!(bare["properties"].get("bot").is_none(), "a process-wide command takes no bot");
    }

    #[test]
    fn responses_become_results_and_errors_keep_their_code() {
        let ok = call_result(r#"{"type":"response","id":"a","x":1,"pos":{"x":0}}"#);
        assert_eq!(ok.is_error, Some(false));
        assert_eq!(ok.structured_content, Some(json!({"x": 1, "pos": {"x": 0}})));
        assert_eq!(ok.meta.as_ref().map(|m| m.0["clawcraft/id"].clone()), Some(json!("a")));
        assert!(ok.content[0].as_text().is_some_and(|t| t.text.contains("\"type\":\"response\"")));

        let line = r#"{"type":"response","id":7,"error":"Invalid parameters: nope","code":"INVALID_PARAMS"}"#;
        let err = call_result(line);
        assert_eq!(err.is_error, Some(true));
        assert_eq!(err.structured_content, None, "clients would check it against the success schema");
        let meta = err.meta.expect("meta").0;
        assert_eq!((meta["clawcraft/code"].as_str(), meta["clawcraft/id"].as_i64()), (Some("INVALID_PARAMS"), Some(7)));
        assert_eq!(err.content[0].as_text().map(|t| t.text.as_str()), Some(line), "the error line as text");

        let picture =
            call_result(r#"{"type":"response","id":3,"png_base64":"iVBORw0K","width":1,"height":1,"legend":"l"}"#);
        assert_eq!(picture.is_error, Some(false));
        assert_eq!(picture.content.len(), 2, "text and image");
        let text = picture.content[0].as_text().map(|t| t.text.clone()).unwrap_or_default();
        assert!(!text.contains("iVBORw0K") && text.contains("\"width\":1"), "{text}");
        match &picture.content[1] {
            ContentBlock::Image(img) => {
                assert_eq!((img.data.as_str(), img.mime_type.as_str()), ("iVBORw0K", "image/png"))
            }
            other => panic!("image content expected: {other:?}"),
        }
        assert_eq!(picture.structured_content.as_ref().map(|s| s["png_base64"].clone()), Some(json!("iVBORw0K")));

        let garbage = call_result("not json");
        assert_eq!(garbage.is_error, Some(true));
        assert_eq!(garbage.meta.expect("meta").0["clawcraft/code"], "INTERNAL");
    }
}

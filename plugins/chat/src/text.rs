//! Pure chat logic: turning a `text` packet into sender + message (rendering translations and
//! rawtext JSON), and ClawCraft's filter (own messages, whitelist, prefix, mentions, sanitising).

use clawcraft_protocol::packets::Text;
use serde_json::Value;

/// Longest message body handed to the agent, in characters (ClawCraft's cap).
pub const MAX_MESSAGE_CHARS: usize = 500;

/// A `text` packet read for meaning, before filtering.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ParsedText {
    /// Player who sent it; empty for server messages.
    pub from: String,
    /// The message body (for player chat without the `<name>` decoration).
    pub msg: String,
    /// A private message to the bot.
    pub whisper: bool,
    /// Sent by the server rather than a player.
    pub system: bool,
    /// The packet's text type (`chat`, `translation`, `json_whisper`, …).
    pub kind: String,
    /// The translation key when the message was one.
    pub key: Option<String>,
    /// Its parameters.
    pub params: Vec<String>,
    /// The server echoing the bot's own whisper ("You whisper to …"): never reported.
    pub own_echo: bool,
}

/// English templates of the keys that matter to an agent (vanilla `en_US.lang`); other keys are
/// rendered as `key param…`.
const TEMPLATES: &[(&str, &str)] = &[
    ("chat.type.text", "<%s> %s"),
    ("chat.type.emote", "* %s %s"),
    ("chat.type.announcement", "[%s] %s"),
    ("chat.type.admin", "[%s: %s]"),
    ("commands.message.display.incoming", "%s whispers to you: %s"),
    ("commands.message.display.outgoing", "You whisper to %s: %s"),
    ("commands.generic.noTargetMatch", "No targets matched selector"),
    ("multiplayer.player.joined", "%s joined the game"),
    ("multiplayer.player.left", "%s left the game"),
    ("death.attack.generic", "%1$s died"),
    ("death.attack.player", "%1$s was slain by %2$s"),
    ("death.attack.mob", "%1$s was slain by %2$s"),
    ("death.attack.arrow", "%1$s was shot by %2$s"),
    ("death.attack.explosion", "%1$s blew up"),
    ("death.attack.explosion.player", "%1$s was blown up by %2$s"),
    ("death.attack.fall", "%1$s hit the ground too hard"),
    ("death.fell.accident.generic", "%1$s fell from a high place"),
    ("death.attack.drown", "%1$s drowned"),
    ("death.attack.lava", "%1$s tried to swim in lava"),
    ("death.attack.inFire", "%1$s went up in flames"),
    ("death.attack.onFire", "%1$s burned to death"),
    ("death.attack.starve", "%1$s starved to death"),
    ("death.attack.outOfWorld", "%1$s fell out of the world"),
    ("death.attack.magic", "%1$s was killed by magic"),
    ("death.attack.wither", "%1$s withered away"),
    ("death.attack.inWall", "%1$s suffocated in a wall"),
    ("death.attack.cactus", "%1$s was pricked to death"),
];

/// Removes `§x` formatting codes.
pub fn strip_formatting(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c == '§' {
            chars.next();
        } else {
            out.push(c);
        }
    }
    out
}

/// A translation key without its formatting codes and leading `%` (`§e%multiplayer.player.joined`
/// → `multiplayer.player.joined`).
pub fn normalize_key(key: &str) -> String {
    strip_formatting(key).trim().trim_start_matches('%').to_owned()
}

/// Fills `%s` (in order), `%1$s` (by position) and `%%` in `template`.
pub fn fill(template: &str, params: &[String]) -> String {
    let mut out = String::new();
    let mut next = 0usize;
    let mut rest = template;
    while let Some(i) = rest.find('%') {
        out.push_str(&rest[..i]);
        let after = &rest[i + 1..];
        if let Some(tail) = after.strip_prefix('%') {
            out.push('%');
            rest = tail;
        } else if let Some(tail) = after.strip_prefix('s') {
            out.push_str(params.get(next).map_or("", String::as_str));
            next += 1;
            rest = tail;
        } else if let Some((n, tail)) = positional(after) {
            out.push_str(params.get(n.wrapping_sub(1)).map_or("", String::as_str));
            rest = tail;
        } else {
            out.push('%');
            rest = after;
        }
    }
    out.push_str(rest);
    out
}

/// `1$s…` → (1, "…").
fn positional(s: &str) -> Option<(usize, &str)> {
    let digits = s.chars().take_while(char::is_ascii_digit).count();
    let n: usize = s[..digits].parse().ok()?;
    let tail = s[digits..].strip_prefix("$s")?;
    Some((n, tail))
}

/// Renders a translation: known keys use their English template, a message that carries its own
/// `%s` placeholders is filled in, anything else becomes `key param…`. Parameters that are keys
/// themselves (`%item.apple.name`) lose their `%` — there is no language file to look them up in.
pub fn render(message: &str, params: &[String]) -> String {
    let params: Vec<String> = params.iter().map(|p| p.strip_prefix('%').unwrap_or(p).to_owned()).collect();
    let key = normalize_key(message);
    if let Some((_, t)) = TEMPLATES.iter().find(|(k, _)| *k == key) {
        return fill(t, &params);
    }
    let plain = strip_formatting(message);
    if plain.contains("%s") || plain.contains("$s") {
        return fill(&plain, &params);
    }
    std::iter::once(key).chain(params).filter(|s| !s.is_empty()).collect::<Vec<_>>().join(" ")
}

/// Text of a rawtext JSON message (`{"rawtext":[{"text":…},{"translate":…,"with":…}]}`), or the
/// string itself when it is not JSON. Also returns the first translate key and its parameters,
/// which say who sent a whisper.
pub fn rawtext(message: &str) -> (String, Option<(String, Vec<String>)>) {
    let Ok(v) = serde_json::from_str::<Value>(message) else { return (message.to_owned(), None) };
    let mut first = None;
    let text = rawtext_value(&v, &mut first);
    (text, first)
}

fn rawtext_value(v: &Value, first: &mut Option<(String, Vec<String>)>) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Array(items) => items.iter().map(|i| rawtext_value(i, first)).collect(),
        Value::Object(m) => {
            if let Some(list) = m.get("rawtext") {
                return rawtext_value(list, first);
            }
            if let Some(t) = m.get("text").and_then(Value::as_str) {
                return t.to_owned();
            }
            if let Some(key) = m.get("translate").and_then(Value::as_str) {
                let params: Vec<String> = match m.get("with") {
                    Some(Value::Array(a)) => a.iter().map(|p| rawtext_value(p, &mut None)).collect(),
                    Some(Value::Object(o)) => match o.get("rawtext") {
                        Some(Value::Array(a)) => a.iter().map(|p| rawtext_value(p, &mut None)).collect(),
                        _ => Vec::new(),
                    },
                    _ => Vec::new(),
                };
                if first.is_none() {
                    *first = Some((normalize_key(key), params.clone()));
                }
                return render(key, &params);
            }
            if let Some(sel) = m.get("selector").and_then(Value::as_str) {
                return sel.to_owned();
            }
            String::new()
        }
        _ => String::new(),
    }
}

/// Applies the meaning of well-known keys: player chat and whispers in translated form name
/// their sender in the first parameter and carry the body in the second.
fn apply_key(p: &mut ParsedText, key: &str, params: &[String]) {
    let two = || (params.first().cloned().unwrap_or_default(), params.get(1).cloned().unwrap_or_default());
    match key {
        "chat.type.text" | "chat.type.emote" => {
            let (from, body) = two();
            p.from = from;
            p.msg = if key == "chat.type.emote" { render(key, params) } else { body };
            p.system = false;
        }
        "chat.type.announcement" | "chat.type.admin" => {
            let (from, body) = two();
            p.from = from;
            p.msg = body;
            p.system = true;
        }
        "commands.message.display.incoming" => {
            let (from, body) = two();
            p.from = from;
            p.msg = body;
            p.whisper = true;
            p.system = false;
        }
        "commands.message.display.outgoing" => p.own_echo = true,
        _ => {}
    }
}

/// Reads a `text` packet of any type.
pub fn parse(t: &Text) -> ParsedText {
    let mut p = ParsedText { kind: t.kind.clone(), ..ParsedText::default() };
    match t.kind.as_str() {
        "chat" | "whisper" | "announcement" => {
            p.from = t.source_name.clone().unwrap_or_default();
            p.msg = t.message.clone();
            p.whisper = t.kind == "whisper";
            p.system = t.kind == "announcement";
        }
        // A popup the server did not mark for translation is plain text, not a key.
        "popup" | "jukebox_popup" if !t.needs_translation => {
            p.msg = t.message.clone();
            p.system = true;
        }
        "translation" | "popup" | "jukebox_popup" => {
            let key = normalize_key(&t.message);
            p.msg = render(&t.message, &t.parameters);
            p.system = true;
            p.params = t.parameters.clone();
            apply_key(&mut p, &key, &t.parameters);
            p.key = Some(key);
        }
        "json" | "json_whisper" | "json_announcement" => {
            let (text, first) = rawtext(&t.message);
            p.msg = text;
            p.whisper = t.kind == "json_whisper";
            p.system = t.kind == "json_announcement";
            if let Some((key, params)) = first {
                apply_key(&mut p, &key, &params);
                p.key = Some(key);
                p.params = params;
            }
        }
        // raw, tip, system, and numbers the mapper does not know.
        _ => {
            p.msg = if t.needs_translation { render(&t.message, &t.parameters) } else { t.message.clone() };
            p.system = t.kind == "system";
        }
    }
    p
}

/// Removes control characters except newline (chat is hostile input) and caps the length.
pub fn sanitize(s: &str, max_chars: usize) -> String {
    s.chars().filter(|c| *c == '\n' || !c.is_control()).take(max_chars).collect()
}

/// What decides whether a message reaches the agent and whether it is `direct`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Filter<'a> {
    /// Lower-case allowed senders; empty allows everyone.
    pub whitelist: &'a [String],
    /// Prefix that marks a message as addressed to the bot.
    pub prefix: Option<&'a str>,
    /// The bot's own name.
    pub own_name: &'a str,
}

/// A message that passed the filter.
#[derive(Debug, Clone, PartialEq)]
pub struct Accepted {
    pub from: String,
    pub msg: String,
    pub direct: bool,
    pub whisper: bool,
    pub system: bool,
}

impl Filter<'_> {
    /// ClawCraft's rules (its README): own messages dropped; with a whitelist, players not
    /// on it are dropped and so are sender-less non-system messages (a plugin could format any
    /// chat that way); control characters stripped, 500-character cap; whispers are direct; a
    /// message starting with the prefix is direct with the prefix removed; one naming the bot is
    /// direct.
    pub fn apply(&self, p: &ParsedText) -> Option<Accepted> {
        if p.own_echo {
            return None;
        }
        let from = sanitize(strip_formatting(&p.from).trim(), 64);
        if !from.is_empty() && !self.own_name.is_empty() && from.eq_ignore_ascii_case(self.own_name) {
            return None;
        }
        if !self.whitelist.is_empty() {
            let allowed = if from.is_empty() { p.system } else { self.whitelist.contains(&from.to_lowercase()) };
            if !allowed {
                return None;
            }
        }
        let mut msg = sanitize(&p.msg, MAX_MESSAGE_CHARS);
        if msg.trim().is_empty() {
            return None;
        }
        let mut direct = p.whisper;
        if let Some(prefix) = self.prefix.filter(|x| !x.is_empty())
            && !p.whisper
            && !p.system
            && msg.to_lowercase().starts_with(&prefix.to_lowercase())
        {
            msg = msg.chars().skip(prefix.chars().count()).collect::<String>().trim().to_owned();
            direct = true;
        }
        if !direct && !self.own_name.is_empty() && msg.to_lowercase().contains(&self.own_name.to_lowercase()) {
            direct = true;
        }
        Some(Accepted { from, msg, direct, whisper: p.whisper, system: p.system })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(v: &[&str]) -> Vec<String> {
        v.iter().map(|x| (*x).to_owned()).collect()
    }

    #[test]
    fn fill_handles_sequential_positional_and_percent() {
        assert_eq!(fill("<%s> %s", &s(&["a", "b"])), "<a> b");
        assert_eq!(fill("%2$s then %1$s, 100%%", &s(&["a", "b"])), "b then a, 100%");
        assert_eq!(fill("%s %s", &s(&["only"])), "only ");
    }

    #[test]
    fn render_known_unknown_and_inline() {
        assert_eq!(render("§e%multiplayer.player.joined", &s(&["Steve"])), "Steve joined the game");
        assert_eq!(render("commands.time.set", &s(&["1000"])), "commands.time.set 1000");
        assert_eq!(render("Hello %s", &s(&["%item.apple.name"])), "Hello item.apple.name");
    }

    #[test]
    fn rawtext_extracts_text_and_translations() {
        let (t, first) = rawtext(r#"{"rawtext":[{"text":"Hi "},{"translate":"chat.type.text","with":["A","b"]}]}"#);
        assert_eq!(t, "Hi <A> b");
        assert_eq!(first, Some(("chat.type.text".into(), s(&["A", "b"]))));
        assert_eq!(rawtext("not json").0, "not json");
    }

    #[test]
    fn sanitize_keeps_newlines_and_caps() {
        assert_eq!(sanitize("a\u{7}b\nc\u{1b}[31m", 500), "ab\nc[31m");
        assert_eq!(sanitize(&"x".repeat(600), 500).len(), 500);
    }
}

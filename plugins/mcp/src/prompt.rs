//! The `play` prompt: the observe → decide → act loop of `skill/SKILL.md`, told in MCP terms.

/// The skill, compiled in so the prompt always says what the skill says.
const SKILL: &str = include_str!("../../../skill/SKILL.md");

pub const NAME: &str = "play";
pub const DESCRIPTION: &str = "Play Minecraft as this bot: the observe → decide → act loop (from the clawcraft skill), \
     with the tools and resources to use at each step";

/// The `## Loop` section of the skill (up to the next `## ` heading).
pub fn skill_loop() -> &'static str {
    let Some(start) = SKILL.find("\n## Loop\n") else { return "" };
    let body = &SKILL[start + "\n## Loop\n".len()..];
    let end = body.find("\n## ").unwrap_or(body.len());
    body[..end].trim()
}

/// The prompt text, with the player's goal when one is given.
pub fn text(goal: Option<&str>) -> String {
    let goal = match goal.map(str::trim).filter(|g| !g.is_empty()) {
        Some(g) => format!("Your goal: {g}\n\n"),
        None => String::new(),
    };
    format!(
        "You are a player in a Minecraft Bedrock world, acting through the clawcraft tools: every \
         clawcraft command is a tool of the same name, its response is the tool result, and an error \
         result carries a stable `code`.\n\n{goal}Repeat this loop:\n\n{}\n\nWith MCP:\n\
         - Events: read the resource `clawcraft://events?since=SEQ` (SEQ = `lastSeq` of your previous \
         read, 0 the first time), or subscribe to `clawcraft://events` and receive new events as they \
         happen. Wait for the `spawn` event (or `status` saying spawned) before acting in the world.\n\
         - `clawcraft://status` and `clawcraft://vitals` are quick observations.\n\
         - Async tools (those whose description says Async) answer at once; their completion event \
         arrives later with the call's id (`_meta.clawcraft/id` of the result).",
        skill_loop()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_prompt_carries_the_skill_loop() {
        let section = skill_loop();
        assert!(section.contains("**Observe**") && section.contains("**Act**"), "the skill's loop: {section}");
        let t = text(Some("build a hut"));
        assert!(t.contains(section));
        assert!(t.contains("Your goal: build a hut"));
        assert!(!text(Some("  ")).contains("Your goal"));
    }
}

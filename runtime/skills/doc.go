// Package skills is the skills catalog of the agentic loop
// (specs/hugind-tool-calling-flow.md, "two-stage skill system"): it loads
// $TROUPE_HOME/skills/<name>/SKILL.md files, renders the short catalog that
// goes into the system prompt, and defines and answers the built-in
// activate_skill tool that hands the model a skill's full instructions.
//
// It only reads skill files. It does not install, edit or watch skills,
// decide where TROUPE_HOME is, or run the agentic loop; the text protocol
// around the tool lives in runtime/tooltext.
//
// It imports nothing of troupe but runtime/tooltext, and knows nothing of
// actors or sessions.
package skills

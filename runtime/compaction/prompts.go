package compaction

// The prompts follow the structure of pi's compaction prompts
// (coding-agent/src/core/compaction/compaction.ts) so that summaries read the
// same whichever implementation wrote them, and an update can extend a
// summary pi wrote.

const systemPrompt = `You summarise a conversation between a user and an AI coding assistant so that another model can carry on the work from your summary alone.

Do NOT continue the conversation. Do NOT answer any question asked in it. Output ONLY the structured summary, in the exact format requested.`

// keptNote matters when Plan split a turn: the conversation then stops in
// the middle of a task whose remaining messages are kept.
const keptNote = `The messages that came after this conversation are kept verbatim and will follow your summary; if the conversation stops in the middle of a task, describe that task under "In Progress" so that they make sense.`

const summaryPrompt = `The messages above, in <conversation> tags, are the conversation to summarise. Write a structured checkpoint that another model will use to continue the work. ` + keptNote + `

Use this EXACT format:

## Goal
[What the user is trying to achieve; several items if the session covers several tasks.]

## Constraints & Preferences
- [Requirements, constraints and preferences the user stated]
- [Or "(none)" if there were none]

## Progress
### Done
- [x] [Completed tasks and changes]

### In Progress
- [ ] [Work under way]

### Blocked
- [What prevents progress, if anything]

## Key Decisions
- **[Decision]**: [Brief rationale]

## Next Steps
1. [What should happen next, in order]

## Critical Context
- [Data, examples or references needed to continue]
- [Or "(none)" if not applicable]

Keep each section concise. Preserve exact file paths, function names and error messages.`

const updatePrompt = `The messages above, in <conversation> tags, are NEW messages; <previous-summary> holds the summary of everything before them. Update that summary with the new messages. ` + keptNote + `

RULES:
- PRESERVE everything in the previous summary that still holds
- ADD the new progress, decisions and context
- MOVE items from "In Progress" to "Done" once they are completed
- UPDATE "Next Steps" for the current state
- PRESERVE exact file paths, function names and error messages
- Remove something only when it is no longer relevant

Use this EXACT format:

## Goal
[Keep the existing goals; add new ones if the task grew]

## Constraints & Preferences
- [Keep the existing ones; add those discovered since]

## Progress
### Done
- [x] [Previously done items AND newly completed ones]

### In Progress
- [ ] [Work under way, updated]

### Blocked
- [Current blockers; drop those resolved]

## Key Decisions
- **[Decision]**: [Brief rationale] (keep all previous ones, add new ones)

## Next Steps
1. [Updated for the current state]

## Critical Context
- [Keep what still matters; add what is new]

Keep each section concise. Preserve exact file paths, function names and error messages.`

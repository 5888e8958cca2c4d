package persistence

import (
	"strconv"
	"strings"
)

// dialect is the SQL a store's database speaks. The store's code is one
// for both: its statements are written with SQLite's ? placeholders and
// pass through bind, and the few fragments that differ (a planner hint,
// a function's name, a row lock) come from here. SQLite's statements are
// used exactly as written, so the embedded store runs the SQL it always
// ran.
type dialect int

const (
	sqliteDialect dialect = iota
	postgresDialect
)

// name is the dialect's suffix in migration file names (migrate.go).
func (d dialect) name() string {
	if d == postgresDialect {
		return "postgres"
	}
	return "sqlite"
}

// bind rewrites q's placeholders for the driver: PostgreSQL numbers them
// ($1, $2, …; ?N becomes $N). No statement of the store has a ? inside a
// string literal, but one there is left alone all the same.
func (d dialect) bind(q string) string {
	if d != postgresDialect || !strings.Contains(q, "?") {
		return q
	}
	var b strings.Builder
	b.Grow(len(q) + 16)
	n, quoted := 0, false
	for i := 0; i < len(q); i++ {
		c := q[i]
		switch {
		case c == '\'':
			quoted = !quoted
			b.WriteByte(c)
		case c == '?' && !quoted:
			j := i + 1
			for j < len(q) && q[j] >= '0' && q[j] <= '9' {
				j++
			}
			if j > i+1 {
				b.WriteString("$" + q[i+1:j])
				i = j - 1
				continue
			}
			n++
			b.WriteString("$" + strconv.Itoa(n))
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// indexedBy names the index SQLite must use (without statistics it takes
// the primary key as cheaper; see kindQuery); PostgreSQL's planner picks a
// partial index whose predicate the query repeats by itself.
func (d dialect) indexedBy(index string) string {
	if d == postgresDialect {
		return ""
	}
	return " INDEXED BY " + index
}

// greatest is the scalar maximum of its arguments: SQLite's two-argument
// max, PostgreSQL's greatest.
func (d dialect) greatest() string {
	if d == postgresDialect {
		return "greatest"
	}
	return "max"
}

// payloadText is an event payload (a JSON object's bytes) as text.
func (d dialect) payloadText() string {
	if d == postgresDialect {
		return "convert_from(payload, 'UTF8')"
	}
	return "CAST(payload AS TEXT)"
}

// containsFold is the condition that text holds the bound parameter,
// ignoring case.
func (d dialect) containsFold(text string) string {
	if d == postgresDialect {
		return "strpos(lower(" + text + "), lower(?)) > 0"
	}
	return "instr(lower(" + text + "), lower(?)) > 0"
}

// inJSONList is the condition that column is among the strings of a JSON
// array bound as one parameter: one parameter however many ids (a
// placeholder each would pass SQLite's limit on variables).
func (d dialect) inJSONList(column string) string {
	if d == postgresDialect {
		return column + " IN (SELECT json_array_elements_text(?::json))"
	}
	return column + " IN (SELECT value FROM json_each(?))"
}

// lockRows is the clause that locks the rows a SELECT reads until the
// transaction ends. SQLite's writer holds the database's one write lock
// for the whole transaction, so it needs none; PostgreSQL's members write
// concurrently, and a lease read to fence or claim must not change hands
// before the transaction commits.
func (d dialect) lockRows() string {
	if d == postgresDialect {
		return " FOR UPDATE"
	}
	return ""
}

// isTrue is the condition that a boolean column holds true: SQLite keeps
// booleans as integers, PostgreSQL as BOOLEAN (migration 0006).
func (d dialect) isTrue(column string) string {
	if d == postgresDialect {
		return column
	}
	return column + " != 0"
}

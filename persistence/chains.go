package persistence

import (
	"context"
	"encoding/json"
	"fmt"
)

// Chains returns the transformer chain of every session that has one, for
// a daemon filling its pipeline as it starts: only those rows are read,
// however many sessions the store holds.
func (s *Store) Chains(ctx context.Context) (map[string][]string, error) {
	rows, err := s.reader.QueryContext(ctx, "SELECT id, transformers FROM sessions WHERE transformers IS NOT NULL")
	if err != nil {
		return nil, fmt.Errorf("list transformer chains: %w", err)
	}
	defer rows.Close()
	out := map[string][]string{}
	for rows.Next() {
		var id, chain string
		if err := rows.Scan(&id, &chain); err != nil {
			return nil, fmt.Errorf("list transformer chains: %w", err)
		}
		var names []string
		if err := json.Unmarshal([]byte(chain), &names); err != nil {
			return nil, fmt.Errorf("session %s transformers: %w", id, err)
		}
		out[id] = names
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list transformer chains: %w", err)
	}
	return out, nil
}

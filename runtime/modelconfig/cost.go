package modelconfig

// Usage counts the tokens of one or more requests. Input excludes cached
// tokens: with OpenAI's usage, Input is prompt_tokens minus
// prompt_tokens_details.cached_tokens, and CacheRead is the cached count.
type Usage struct {
	Input      int
	Output     int
	CacheRead  int
	CacheWrite int
}

// CostBreakdown is in US dollars, shaped like indusagi's usage.cost.
type CostBreakdown struct {
	Input      float64
	Output     float64
	CacheRead  float64
	CacheWrite float64
	Total      float64
}

// Cost prices u with the model's per-million-token rates; a model without
// a cost entry costs nothing, as local models do.
func (m Model) Cost(u Usage) CostBreakdown {
	p := m.Pricing
	c := CostBreakdown{
		Input:      perMillion(u.Input, p.Input),
		Output:     perMillion(u.Output, p.Output),
		CacheRead:  perMillion(u.CacheRead, p.CacheRead),
		CacheWrite: perMillion(u.CacheWrite, p.CacheWrite),
	}
	c.Total = c.Input + c.Output + c.CacheRead + c.CacheWrite
	return c
}

func perMillion(tokens int, price float64) float64 {
	return float64(tokens) * price / 1e6
}

package experiment

// An EpisodeMetric is a column of episodes.csv that holds a number of the
// episode: what an environment reports of each finished episode, under
// the column's name, read from the cell episodes.csv writes so that the
// two never disagree.
type EpisodeMetric struct {
	Name string
	cell func(r *Row) cell
}

// Value returns the metric of the row as a number: the cell's number, 1
// and 0 for true and false.
func (m EpisodeMetric) Value(r *Row) float64 { return m.cell(r).v }

// EpisodeMetrics returns the numeric columns of episodes.csv that one
// episode determines, in the order of the table, the optional groups
// included (shared, hand-off, budget, stall): every column but the
// variant's name and comm_changed_outcome, which replays the episode
// under the same decisions. A caller scoring episodes from these needs
// the stall and the budget's end, which its reward counts.
func EpisodeMetrics() []EpisodeMetric {
	var out []EpisodeMetric
	for _, cs := range [][]column{episodeColumns, sharedColumns, handoffColumns, budgetColumns, stallColumns} {
		for _, c := range cs {
			switch c.name {
			case "variant", "comm_changed_outcome":
				continue
			}
			out = append(out, EpisodeMetric{Name: c.name, cell: c.value})
		}
	}
	return out
}

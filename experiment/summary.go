package experiment

import (
	"math"

	"github.com/swarmsim/swarmsim/models/collective"
	"github.com/swarmsim/swarmsim/stats"
)

// Summary aggregates the rows of one variant. Times are in seconds of
// virtual time; means come with 95% percentile bootstrap intervals
// (stats.Default), which lie inside the range of the episodes' values.
type Summary struct {
	Variant    string
	N          int // episodes
	Acceptable int // acceptable episodes
	// Success is the fraction of acceptable episodes with its Wilson score
	// interval.
	Success stats.Interval
	// Finish is the mean finish time of all episodes (an episode that ran
	// out of time finishes at the limit).
	Finish stats.Interval
	// FinishAcceptable is the mean finish time of acceptable episodes
	// only; NaN when none was acceptable.
	FinishAcceptable stats.Interval
	// Reward is the mean collective reward (Row.Reward).
	Reward        stats.Interval
	ModelCalls    stats.Interval
	Tokens        stats.Interval // prompt plus output tokens
	AgentTime     stats.Interval // total busy time of all agents: the cost
	Messages      stats.Interval
	Parallelism   stats.Interval // mean parallelism: agent time over finish time
	CriticalSteps stats.Interval
	// CallLatency is the mean time a call spent at a shared server or API
	// (collective.Metrics.CallLatency), and ServingWait the mean time per
	// episode that calls queued there; both 0 without one.
	CallLatency stats.Interval
	ServingWait stats.Interval
	// CostPerAcceptable is the total agent time of all episodes divided by
	// the number of acceptable ones, in seconds: what one acceptable result
	// costs. It is +Inf when no episode was acceptable (print it as "inf",
	// as strconv does) and NaN when there are no episodes.
	CostPerAcceptable float64
	// CommChanged counts the episodes whose acceptability changed when
	// messages were dropped (see Row.CommChanged).
	CommChanged int
}

// Summarize aggregates rows per variant, in the order in which variants
// first appear.
func Summarize(rows []Row) []Summary {
	var order []string
	groups := map[string][]*Row{}
	for i := range rows {
		r := &rows[i]
		if _, ok := groups[r.Variant]; !ok {
			order = append(order, r.Variant)
		}
		groups[r.Variant] = append(groups[r.Variant], r)
	}
	out := make([]Summary, len(order))
	for i, name := range order {
		out[i] = summarize(name, groups[name])
	}
	return out
}

func summarize(name string, rows []*Row) Summary {
	s := Summary{Variant: name, N: len(rows)}
	col := func(f func(m *collective.Metrics) float64) stats.Interval {
		xs := make([]float64, len(rows))
		for i, r := range rows {
			xs[i] = f(&r.Metrics)
		}
		return stats.Default.CI(xs, stats.Mean)
	}
	var finishOK []float64
	var agentTime float64
	for _, r := range rows {
		if r.Metrics.Acceptable {
			s.Acceptable++
			finishOK = append(finishOK, r.Metrics.Finish.Seconds())
		}
		if r.CommChanged {
			s.CommChanged++
		}
		agentTime += r.Metrics.AgentTime.Seconds()
	}
	s.Success = stats.Wilson(s.Acceptable, s.N)
	s.Finish = col(func(m *collective.Metrics) float64 { return m.Finish.Seconds() })
	s.FinishAcceptable = stats.Default.CI(finishOK, stats.Mean)
	rewards := make([]float64, len(rows))
	for i, r := range rows {
		rewards[i] = r.Reward
	}
	s.Reward = stats.Default.CI(rewards, stats.Mean)
	s.ModelCalls = col(func(m *collective.Metrics) float64 { return float64(m.ModelCalls) })
	s.Tokens = col(func(m *collective.Metrics) float64 { return float64(m.Tokens()) })
	s.AgentTime = col(func(m *collective.Metrics) float64 { return m.AgentTime.Seconds() })
	s.Messages = col(func(m *collective.Metrics) float64 { return float64(m.Messages) })
	s.Parallelism = col(func(m *collective.Metrics) float64 { return m.ParallelismMean })
	s.CriticalSteps = col(func(m *collective.Metrics) float64 { return float64(m.CriticalSteps) })
	s.CallLatency = col(func(m *collective.Metrics) float64 { return m.CallLatency() })
	s.ServingWait = col(func(m *collective.Metrics) float64 { return m.ServingWait.Seconds() })
	switch {
	case s.N == 0:
		s.CostPerAcceptable = math.NaN()
	case s.Acceptable == 0:
		s.CostPerAcceptable = math.Inf(1)
	default:
		s.CostPerAcceptable = agentTime / float64(s.Acceptable)
	}
	return s
}

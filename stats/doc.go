// Package stats holds the interval estimates and aggregates behind
// swarmsim's tables and charts, chosen so that few seeds do not mislead
// (Agarwal et al. 2021, "Deep RL at the edge of the statistical
// precipice"; the rliable library) and so that every interval lies inside
// what its metric can be:
//
//   - Wilson score intervals for rates (k successes out of n), inside
//     [0, 1] by construction and sound near 0 and 1 and for small n;
//   - percentile bootstrap intervals, seeded, with a stated number of
//     resamples, for the mean, the median and the interquartile mean (IQM)
//     of values across seeds or episodes. A percentile interval is made of
//     values the statistic takes on resamples of the data, and the mean,
//     median and IQM of values in a range stay in it, so the interval lies
//     between the data's minimum and maximum: inside the metric's domain
//     whatever that is, without clipping;
//   - stratified resampling (each group, such as each of two directories
//     being compared, resampled on its own) for differences, and paired
//     resampling where two sets of values share their random draws;
//   - performance profiles (the fraction of runs above each threshold)
//     and the probability of improvement P(X > Y) of one set of runs over
//     another, as rliable reports them;
//   - least-squares lines and power laws (fitted on log–log axes) with
//     the bootstrap over units (Units): every point of a seed is resampled
//     with its seed, so a fitted exponent or a line's zero crossing gets
//     an interval across seeds.
//
// Everything is deterministic: the same values and the same Bootstrap
// give the same intervals, byte for byte. docs/statistics.md explains the
// choices.
//
// A product added to or subtracted from another number is written
// float64(x*y) + z: the conversion rounds the product, so that no
// architecture fuses the two into one multiply-add and every machine
// computes the same bits (internal/portable checks it).
package stats

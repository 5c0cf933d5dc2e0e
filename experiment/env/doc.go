// Package env is swarmsim as a vector environment for an outside learner:
// many episodes of one scenario variant stepped together, each paused at
// its decisions with a choice (collective.Stepper) and resumed with the
// actions a caller gives, in one call for every row.
//
// An Env is made from a scenario (a library name or a YAML path), its
// variant, --set overrides, the number of rows and their group size G.
// Observations are the learned policy's feature vector (package policy's
// Features), masks the valid actions, rewards the scenario's collective
// reward as the RLCR learner scores it (rlcr.Reward.Group), and a finished
// episode's metrics are the columns of episodes.csv
// (experiment.EpisodeMetrics). Rows come in groups of G consecutive rows
// that share one task instance and the environment's random streams, the
// common random numbers of train.crn; each row of a group has its own
// decision draws. With G = 1 a finished row starts its next episode in
// the same step (autoreset); with G > 1 it stays inactive until Reset.
//
// Episode k of row i works on task instance k·(N/G) + i/G, drawn as
// `simulate run` draws its episode of that number (experiment.DrawEpisode),
// and the first row of each group decides with that episode's own draws:
// with the choices of the variant's policy, row 0's episodes are those of
// episodes.csv. Each decision also comes with the uniform draw a built-in
// policy would sample it with, and in words (Render), for a policy that
// reads.
//
// Serve speaks the swarmsim-env/2 protocol over a pair of streams
// (frame.go: length-prefixed JSON headers with binary arrays; server.go:
// the requests make, reset, step, render and close, and error replies
// that name the field): `simulate env` serves it on standard input and
// output, and docs/environment.md is its reference.
package env

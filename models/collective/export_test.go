package collective

// SetRunsOff turns runs of model calls off (or on again) and returns a
// function that restores the setting, for the tests that compare the two
// ways.
func SetRunsOff(off bool) (restore func()) {
	was := runsOff
	runsOff = off
	return func() { runsOff = was }
}

// RunsGoing returns how many agents of the runner's episode in progress
// have a run of model calls going, for the tests that check that runs
// happen at all.
func (r *Runner) RunsGoing() int { return len(r.ep.running) }

package collective

// SetRunsOff turns runs of model calls off (or on again) and returns a
// function that restores the setting, for the tests that compare the two
// ways.
func SetRunsOff(off bool) (restore func()) {
	was := runsOff
	runsOff = off
	return func() { runsOff = was }
}

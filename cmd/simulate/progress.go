package main

import (
	"io"
	"os"

	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"
	"golang.org/x/term"
)

// A progress is a progress bar on a terminal. The nil *progress, returned
// when the output is not a terminal, draws nothing: logs and pipes stay
// free of control characters.
type progress struct {
	p   *mpb.Progress
	bar *mpb.Bar
}

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// newProgress returns a bar counting to total on w, or nil when w is not
// a terminal or there is nothing to count.
func newProgress(w io.Writer, name string, total int) *progress {
	if total <= 0 || !isTerminal(w) {
		return nil
	}
	p := mpb.New(mpb.WithOutput(w), mpb.WithWidth(40))
	bar := p.AddBar(int64(total),
		mpb.PrependDecorators(
			decor.Name(name, decor.WCSyncSpaceR),
			decor.CountersNoUnit("%d/%d", decor.WCSyncWidth),
		),
		mpb.AppendDecorators(
			decor.Percentage(decor.WC{W: 5}),
			decor.OnComplete(decor.AverageETA(decor.ET_STYLE_GO, decor.WC{W: 6}), ""),
		),
	)
	return &progress{p: p, bar: bar}
}

// increment advances the bar by one. It is safe for concurrent use.
func (p *progress) increment() {
	if p != nil {
		p.bar.Increment()
	}
}

// add advances the bar by n, for work done before (a resumed training).
func (p *progress) add(n int) {
	if p != nil && n > 0 {
		p.bar.IncrBy(n)
	}
}

// finish completes the bar, or removes it when the work failed, and waits
// until it is drawn for the last time.
func (p *progress) finish(ok bool) {
	if p == nil {
		return
	}
	if ok {
		p.bar.SetTotal(-1, true) // complete, even if fewer were counted
	} else {
		p.bar.Abort(true)
	}
	p.p.Wait()
}

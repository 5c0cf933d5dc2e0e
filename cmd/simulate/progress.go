package main

import (
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/vbauerster/cupwriter"
	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"
	"golang.org/x/term"
)

// A progress shows how far long work is: a bar on a terminal, and on
// anything else (a SLURM log, a pipe) a plain line at most every
// progressEvery, so that logs show the work is alive without filling up
// with control characters. The nil *progress, for nothing to count,
// shows nothing. Its methods are safe for concurrent use.
type progress struct {
	// On a terminal:
	p   *mpb.Progress
	bar *mpb.Bar

	// Elsewhere:
	w           io.Writer
	name        string
	total, done atomic.Int64
	start       time.Time
	stop        chan struct{}
	stopped     sync.WaitGroup
}

// progressEvery is the least time between two progress lines on a
// non-terminal.
var progressEvery = 30 * time.Second

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// newProgress returns a progress counting to total on w, or nil when
// there is nothing to count.
func newProgress(w io.Writer, name string, total int) *progress {
	if total <= 0 {
		return nil
	}
	if !isTerminal(w) {
		return newLines(w, name, total)
	}
	p := mpb.New(mpb.WithOutput(w), mpb.WithWidth(40), mpb.WithConsoleWriter(sized{cupwriter.New(w, false)}))
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

// sized is a console that reports a usable size where the terminal
// reports none: terminals inside some containers and CI runners say 0×0,
// and a bar drawn 0 columns wide is no bar.
type sized struct{ mpb.ConsoleWriter }

// Size of the console when the terminal reports none.
const (
	fallbackWidth  = 80
	fallbackHeight = 24
)

func (s sized) GetTermSize() (width, height int, err error) {
	width, height, err = s.ConsoleWriter.GetTermSize()
	if err != nil || width <= 0 || height <= 0 {
		return fallbackWidth, fallbackHeight, nil
	}
	return width, height, nil
}

// newLines starts the line printer of a non-terminal.
func newLines(w io.Writer, name string, total int) *progress {
	p := &progress{w: w, name: name, start: time.Now(), stop: make(chan struct{})}
	p.total.Store(int64(total))
	p.stopped.Add(1)
	go func() {
		defer p.stopped.Done()
		tick := time.NewTicker(progressEvery)
		defer tick.Stop()
		for {
			select {
			case <-p.stop:
				return
			case <-tick.C:
				p.line()
			}
		}
	}()
	return p
}

// line prints one progress line: "progress: episodes 120/400 (30%), 1m30s".
func (p *progress) line() {
	done, total := p.done.Load(), p.total.Load()
	fmt.Fprintf(p.w, "progress: %s %d/%d (%d%%), %s\n", p.name, done, total, 100*done/max(1, total), time.Since(p.start).Round(time.Second))
}

// increment advances the progress by one.
func (p *progress) increment() { p.add(1) }

// add advances the progress by n, such as the work a resumed training
// did before.
func (p *progress) add(n int) {
	switch {
	case p == nil || n <= 0:
	case p.bar != nil:
		p.bar.IncrBy(n)
	default:
		p.done.Add(int64(n))
	}
}

// finish completes the bar, or removes it when the work failed, and waits
// until it is drawn for the last time; a line printer stops.
func (p *progress) finish(ok bool) {
	switch {
	case p == nil:
	case p.bar != nil:
		if ok {
			p.bar.SetTotal(-1, true) // complete, even if fewer were counted
		} else {
			p.bar.Abort(true)
		}
		p.p.Wait()
	default:
		close(p.stop)
		p.stopped.Wait()
	}
}

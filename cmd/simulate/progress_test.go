package main

import (
	"bytes"
	"errors"
	"regexp"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/vbauerster/mpb/v8"
)

// syncBuffer is a bytes.Buffer safe for the printer's goroutine.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestProgressLinesOnANonTerminal(t *testing.T) {
	old := progressEvery
	progressEvery = 20 * time.Millisecond
	defer func() { progressEvery = old }()

	var out syncBuffer
	p := newProgress(&out, "episodes", 40)
	p.add(10)
	time.Sleep(110 * time.Millisecond)
	p.increment()
	p.finish(true)
	text := out.String()
	lines := regexp.MustCompile(`(?m)^progress: episodes (\d+)/40 \((\d+)%\), \d+s$`).FindAllStringSubmatch(text, -1)
	assert.GreaterOrEqual(t, len(lines), 2, "a line every interval:\n%s", text)
	assert.LessOrEqual(t, len(lines), 7, "no more than one per interval:\n%s", text)
	assert.Equal(t, "10", lines[0][1])
	assert.Equal(t, "25", lines[0][2])
	assert.NotContains(t, text, "\x1b", "no control characters in a log")

	after := out.String()
	time.Sleep(60 * time.Millisecond)
	assert.Equal(t, after, out.String(), "nothing after finish")
}

// zeroConsole is a terminal that reports 0×0, as some containers do.
type zeroConsole struct {
	mpb.ConsoleWriter
	err error
}

func (z zeroConsole) GetTermSize() (int, int, error) { return 0, 0, z.err }

func TestBarOnAZeroSizedTerminal(t *testing.T) {
	for _, z := range []zeroConsole{{}, {err: errors.New("inappropriate ioctl")}} {
		w, h, err := sized{z}.GetTermSize()
		assert.NoError(t, err)
		assert.Equal(t, fallbackWidth, w)
		assert.Equal(t, fallbackHeight, h)
	}
}

package main

import (
	"context"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	htmlreport "github.com/swarmsim/swarmsim/report"
)

// The browser test's settings from the environment.
const (
	// shotsEnv names a directory for the screenshots the browser test
	// takes; by default they go to a temporary directory, named in the
	// test's log.
	shotsEnv = "SWARMSIM_REPORT_SHOTS"
	// extraEnv lists more complete directories (separated as in $PATH)
	// whose reports the test checks and photographs, each as
	// extra-BASENAME: full results rather than the test's small ones, and
	// the training of the screenshot in docs/ (docs/screenshots/report.sh).
	extraEnv = "SWARMSIM_REPORT_DIR"
	// chromiumEnv names the browser to run, if not chromium on PATH.
	chromiumEnv = "SWARMSIM_CHROMIUM"
)

// chromium returns the path of a Chromium to test in, or skips the test
// saying how to install one.
func chromium(t *testing.T) string {
	t.Helper()
	if p := os.Getenv(chromiumEnv); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skipf("no Chromium to open the reports in: install Debian's chromium (apt-get install -y chromium), or name a browser in $%s", chromiumEnv)
	return ""
}

// pageCheck is what the browser measures of a report.
type pageCheck struct {
	Charts      []chartBox `json:"charts"`
	ScrollWidth int        `json:"scrollWidth"`
	Tables      int        `json:"tables"`
	Written     string     `json:"written"`
}

type chartBox struct {
	ID     string  `json:"id"`
	Width  float64 `json:"width"`
	Height float64 `json:"height"`
}

// measure is the script that reads pageCheck from the page.
const measure = `(() => ({
	charts: Array.from(document.querySelectorAll("figure")).map(f => {
		const s = f.querySelector("svg"), r = s ? s.getBoundingClientRect() : {width: 0, height: 0};
		return {id: f.id, width: r.width, height: r.height};
	}),
	scrollWidth: document.documentElement.scrollWidth,
	tables: document.querySelectorAll("table").length,
	written: document.getElementById("written").textContent,
}))()`

// checkInBrowser opens the reports of dirs of kinds (a run, a train, a
// sweep, a compare and a fit directory) in headless Chromium from the file system
// and checks that each loads with no console error or exception, that
// every chart's SVG is drawn with a non-zero size, and that nothing is
// wider than the window at 1280 px, nor at a phone's 390 px. It saves a
// screenshot of each (the first screen, and the whole page) and logs
// where.
func checkInBrowser(t *testing.T, dirs map[string]string, kinds []reportKind) {
	browser := chromium(t)
	dirs = maps.Clone(dirs)
	var names []string
	for _, k := range kinds {
		names = append(names, k.name)
	}
	for _, extra := range filepath.SplitList(os.Getenv(extraEnv)) {
		name := "extra-" + filepath.Base(extra)
		dirs[name], names = extra, append(names, name)
	}
	shots := os.Getenv(shotsEnv)
	if shots == "" {
		shots = t.TempDir()
	}
	require.NoError(t, os.MkdirAll(shots, 0o755))

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	ctx, cancel = chromedp.NewExecAllocator(ctx, chromedp.ExecPath(browser), chromedp.Headless, chromedp.NoSandbox,
		chromedp.DisableGPU, chromedp.NoFirstRun, chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.UserDataDir(t.TempDir()))
	defer cancel()
	ctx, cancel = chromedp.NewContext(ctx)
	defer cancel()

	// Every console message of every page, from before the first one
	// loads.
	var (
		mu       sync.Mutex
		messages []string
	)
	console := chromedp.Console(ctx)
	go func() {
		for m, err := range console {
			if err != nil {
				return
			}
			if m.Type == chromedp.ConsoleError || m.IsException() || m.Type == chromedp.ConsoleWarning {
				mu.Lock()
				messages = append(messages, fmt.Sprintf("%s: %s (%s:%d)", m.Type, m.Text, m.URL, m.Line+1))
				mu.Unlock()
			}
		}
	}()

	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			dir, err := filepath.Abs(dirs[name])
			require.NoError(t, err)
			want := chartNames(t, dir)
			mu.Lock()
			messages = nil
			mu.Unlock()
			require.NoError(t, chromedp.Do(ctx, chromedp.EmulateViewport(1280, 1000),
				chromedp.Navigate("file://"+filepath.ToSlash(filepath.Join(dir, htmlreport.Name)))))
			wide, err := chromedp.Run(ctx, chromedp.Evaluate[pageCheck](measure))
			require.NoError(t, err)

			assert.Len(t, wide.Charts, len(want), "a figure per chart")
			for _, c := range wide.Charts {
				assert.True(t, c.Width > 0 && c.Height > 0, "chart %s is drawn %gx%g px", c.ID, c.Width, c.Height)
			}
			assert.Positive(t, wide.Tables)
			assert.LessOrEqual(t, wide.ScrollWidth, 1280, "the page is wider than the window at 1280 px")
			assert.Regexp(t, `^\d{4}-\d\d-\d\d \d\d:\d\d UTC$`, wide.Written, "the script ran")

			first, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
			require.NoError(t, err)
			whole, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
			require.NoError(t, err)

			require.NoError(t, chromedp.Do(ctx, chromedp.EmulateViewport(390, 844, chromedp.EmulateScale(2), chromedp.EmulateMobile)))
			phone, err := chromedp.Run(ctx, chromedp.Evaluate[pageCheck](measure))
			require.NoError(t, err)
			assert.LessOrEqual(t, phone.ScrollWidth, 390, "the page is wider than a phone's 390 px")
			for _, c := range phone.Charts {
				assert.True(t, c.Width > 0 && c.Width <= 390, "chart %s is %g px wide on a phone", c.ID, c.Width)
			}

			mu.Lock()
			assert.Empty(t, messages, "the console")
			mu.Unlock()
			for file, png := range map[string][]byte{name + ".png": first, name + "-full.png": whole} {
				require.NoError(t, os.WriteFile(filepath.Join(shots, file), png, 0o644))
			}
			t.Logf("screenshots: %s and %s", filepath.Join(shots, name+".png"), filepath.Join(shots, name+"-full.png"))
		})
	}
}

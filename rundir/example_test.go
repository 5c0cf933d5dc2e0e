package rundir_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/swarmsim/swarmsim/rundir"
)

// A run writes its tables, then the manifest; a later command reads the
// directory back.
func Example() {
	tmp, _ := os.MkdirTemp("", "rundir")
	defer os.RemoveAll(tmp)
	path := filepath.Join(tmp, "tiny-seed1")

	d, err := rundir.Create(path, false)
	if err != nil {
		fmt.Println(err)
		return
	}
	d.Write("episodes.csv", rundir.CSV([]string{"variant", "finish_time"}, [][]string{{"team", "90"}}))
	d.Commit(&rundir.Manifest{Kind: rundir.KindRun, Scenario: "tiny", Variants: []string{"team"}})

	r, _ := rundir.Open(path)
	t, _ := r.Table("episodes.csv")
	fmt.Println(r.Manifest.Kind, r.Manifest.Files, t.Header, t.Rows)
	// Output: run [episodes.csv] [variant finish_time] [[team 90]]
}

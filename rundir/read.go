package rundir

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/swarmsim/swarmsim/internal/spelling"
)

// started lists the first entries of the directory path ("a, b, c, d
// and 2 more"), the files of work begun and not finished, or of no
// command's; "" where it holds nothing (or cannot be read).
func started(path string) string {
	entries, err := os.ReadDir(path)
	if err != nil || len(entries) == 0 {
		return ""
	}
	const most = 4
	var names []string
	for _, e := range entries[:min(len(entries), most)] {
		name := e.Name()
		if e.IsDir() {
			name += "/"
		}
		names = append(names, name)
	}
	list := strings.Join(names, ", ")
	if len(entries) > most {
		list += fmt.Sprintf(" and %d more", len(entries)-most)
	}
	return list
}

// A Run is a complete directory read back.
type Run struct {
	Path     string
	Manifest *Manifest
}

// Open reads the complete directory at path. The error wraps
// ErrIncomplete for a directory without a manifest, and names the
// complete directories below it (the ones meant, perhaps) when there are.
func Open(path string) (*Run, error) {
	m, err := ReadManifest(path)
	if errors.Is(err, ErrIncomplete) {
		// Two levels: enough for out/NAME, not a walk of a whole disk.
		if below, lerr := list(path, 2); lerr == nil && len(below) > 0 {
			const most = 5
			more := ""
			if len(below) > most {
				more = fmt.Sprintf(" and %d more", len(below)-most)
				below = below[:most]
			}
			return nil, fmt.Errorf("%w; complete directories below it: %s%s", err, strings.Join(below, ", "), more)
		}
		if held := started(path); held != "" {
			return nil, fmt.Errorf("%w; it holds %s, but no %s (an interrupted training or sweep finishes when the command that started it is run again)", err, held, ManifestName)
		}
	}
	if err != nil {
		return nil, err
	}
	return &Run{Path: path, Manifest: m}, nil
}

// Join returns the path of name (slash-separated, relative to r).
func (r *Run) Join(name string) string { return filepath.Join(r.Path, filepath.FromSlash(name)) }

// Table reads the CSV file name that the manifest lists.
func (r *Run) Table(name string) (*Table, error) {
	if !r.Manifest.Has(name) {
		return nil, fmt.Errorf("%s: the %s directory has no %s", r.Path, r.Manifest.Kind, name)
	}
	return ReadTable(r.Join(name))
}

// A Table is a CSV file with a header row.
type Table struct {
	// Path is the file the table was read from, for error messages.
	Path   string
	Header []string
	Rows   [][]string
	// lines holds the file line each row starts on, where ParseTable read
	// it: a quoted field may hold newlines, so row i need not be line i+2.
	lines []int
}

// Line returns the line of the file that row i (0 is the first row after
// the header) starts on, for error messages.
func (t *Table) Line(i int) int {
	if i < len(t.lines) {
		return t.lines[i]
	}
	return i + 2
}

// ReadTable reads the CSV file at path: a header, then rows of as many
// fields.
func ReadTable(path string) (*Table, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ParseTable(path, b)
}

// ParseTable parses data, the CSV file at path, as a table.
func ParseTable(path string, data []byte) (*Table, error) {
	r := csv.NewReader(bytes.NewReader(data))
	var recs [][]string
	var lines []int
	for {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		line, _ := r.FieldPos(0)
		recs, lines = append(recs, rec), append(lines, line)
	}
	if len(recs) == 0 {
		return nil, fmt.Errorf("%s: empty, want a header row", path)
	}
	return &Table{Path: path, Header: recs[0], Rows: recs[1:], lines: lines[1:]}, nil
}

// Col returns the index of the column name, or -1 and an error naming
// the file and the columns it has.
func (t *Table) Col(name string) (int, error) {
	if i := slices.Index(t.Header, name); i >= 0 {
		return i, nil
	}
	return -1, fmt.Errorf("%s: no column %q (it has %v)%s", t.Path, name, t.Header, spelling.DidYouMean(name, t.Header))
}

// PolicyCol returns the index of a training summary's policy column, the
// one after "metric" that tells each variant's learned rows from its
// fixed ones (its baselines), or -1 if the table has none.
func (t *Table) PolicyCol() int {
	m, p := slices.Index(t.Header, "metric"), slices.Index(t.Header, "policy")
	if m < 0 || p < m {
		return -1
	}
	return p
}

// Keys returns the columns that name a row of a tidy summary, a table with
// one row per key and metric: those before the column "metric", and the
// policy column (PolicyCol) where its rows hold more than one policy; a
// column that says "learned" on every row would tell no row apart. A
// summary without a "metric" column is an error.
func (t *Table) Keys() ([]int, error) {
	m, err := t.Col("metric")
	if err != nil {
		return nil, err
	}
	keys := make([]int, m, m+1)
	for i := range keys {
		keys[i] = i
	}
	if p := t.PolicyCol(); p >= 0 && slices.ContainsFunc(t.Rows, func(r []string) bool { return r[p] != t.Rows[0][p] }) {
		keys = append(keys, p)
	}
	return keys, nil
}

// Key returns the fields of row that Keys names, in their order.
func Key(row []string, keys []int) []string {
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = row[k]
	}
	return out
}

// Float reads the number in column col of row i (0 is the first row
// after the header); the error names the file, line and column.
func (t *Table) Float(i, col int) (float64, error) {
	v, err := strconv.ParseFloat(t.Rows[i][col], 64)
	if err != nil {
		return 0, fmt.Errorf("%s:%d: column %s: %q is not a number", t.Path, t.Line(i), t.Header[col], t.Rows[i][col])
	}
	return v, nil
}

// Count reads the count (a whole number, 0 or more) in column col of
// row i: n_seeds, n.
func (t *Table) Count(i, col int) (int, error) {
	v, err := strconv.Atoi(t.Rows[i][col])
	if err != nil || v < 0 {
		return 0, fmt.Errorf("%s:%d: column %s: %q is not a count", t.Path, t.Line(i), t.Header[col], t.Rows[i][col])
	}
	return v, nil
}

// Bool reads the true or false in column col of row i.
func (t *Table) Bool(i, col int) (bool, error) {
	v, err := strconv.ParseBool(t.Rows[i][col])
	if err != nil {
		return false, fmt.Errorf("%s:%d: column %s: %q is not true or false", t.Path, t.Line(i), t.Header[col], t.Rows[i][col])
	}
	return v, nil
}

// CSV renders rows under header as CSV (RFC 4180, "\n" line ends).
func CSV(header []string, rows [][]string) []byte {
	// Made at its size (each field and its separator; quotes are rare),
	// not grown by doubling: a training's iterations.csv runs to a hundred
	// kilobytes and more, and in a process too short to collect, every
	// byte allocated is a fresh page.
	size := recordSize(header)
	for _, r := range rows {
		size += recordSize(r)
	}
	var b bytes.Buffer
	b.Grow(size)
	w := csv.NewWriter(&b)
	w.Write(header)
	w.WriteAll(rows) // writing strings into memory cannot fail
	return b.Bytes()
}

// recordSize is the length of a CSV record of fields that need no quotes.
func recordSize(fields []string) int {
	n := 0
	for _, f := range fields {
		n += len(f) + 1
	}
	return n
}

// List returns the complete directories at or below root (those with a
// manifest that reads), sorted. It searches every depth, so the shards a
// sweep keeps inside its directory are listed beside it, but not the
// result a forced rerun keeps in PreviousDir until it commits. A manifest
// that does not read is an error naming it.
func List(root string) ([]string, error) { return list(root, -1) }

// list is List down to depth levels below root; -1 for every level.
func list(root string, depth int) ([]string, error) {
	root = filepath.Clean(root)
	var dirs []string
	err := filepath.WalkDir(root, func(path string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !e.IsDir() {
			return nil
		}
		if e.Name() == PreviousDir && path != root {
			return filepath.SkipDir // a result being replaced, not one to read
		}
		if _, err := ReadManifest(path); err == nil {
			dirs = append(dirs, path)
		} else if !errors.Is(err, ErrIncomplete) {
			return err
		}
		if rel, _ := filepath.Rel(root, path); depth >= 0 && rel != "." && strings.Count(rel, string(filepath.Separator)) >= depth-1 {
			return filepath.SkipDir
		}
		return nil
	})
	slices.Sort(dirs)
	return dirs, err
}

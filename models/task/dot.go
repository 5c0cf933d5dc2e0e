package task

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/swarmsim/swarmsim/sim"
)

// ReadDOT reads a task graph written in a practical subset of the Graphviz
// DOT language; name (usually the file name) starts every error message,
// followed by line:column where the input is at fault.
//
// Accepted: one "digraph" (optionally "strict", optionally named) holding
// node statements, edge statements with chains (a -> b -> c), attribute
// lists ([k=v, k=v; k=v], repeatable), default attribute statements
// (node [...], edge [...]; graph [...] and k=v graph attributes are
// ignored), quoted IDs ("…" with \" and \\ escapes, joined with +), HTML
// IDs (<…>), comments (//, /* */, and lines starting with #) and optional
// semicolons. Nodes are numbered in order of first mention.
//
// Node attributes: work (a duration such as "90s" or "1m30s", or a number
// of seconds), difficulty, tokens (OutputTokens), coupling, loop, join
// ("all" or "any"). Edge attribute: tokens (0 for none; absent: the
// producer's tokens). Other attributes (label, shape, …) are ignored.
// Rejected with an error: undirected graphs and "--" edges, subgraphs and
// { } groups, ports (a:p), duplicate edges unless the graph is strict
// (where later attributes override earlier ones), self loops and cycles.
func ReadDOT(r io.Reader, name string) (*Graph, error) {
	rg, err := readDOT(r, name)
	if err != nil {
		return nil, err
	}
	return rg.build(name)
}

func readDOT(r io.Reader, name string) (*rawGraph, error) {
	src, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	p := &dotParser{lx: dotLexer{src: src, line: 1, col: 1, lineStart: true}, name: name}
	rg, err := p.parse()
	if err != nil {
		return nil, err
	}
	return rg, nil
}

// --- lexer ---

type dotKind uint8

const (
	tEOF dotKind = iota
	tID
	tLBrace
	tRBrace
	tLBrack
	tRBrack
	tEq
	tSemi
	tComma
	tColon
	tArrow // ->
	tDash  // --
	tPlus
)

type pos struct{ line, col int }

func (p pos) String() string { return strconv.Itoa(p.line) + ":" + strconv.Itoa(p.col) }

type dotToken struct {
	kind   dotKind
	text   string // the ID's value
	quoted bool   // written as "…" or <…>: never a keyword
	at     pos
}

func (t dotToken) describe() string {
	switch t.kind {
	case tEOF:
		return "end of input"
	case tID:
		if t.quoted {
			return strconv.Quote(t.text)
		}
		return "'" + t.text + "'"
	case tArrow:
		return "'->'"
	case tDash:
		return "'--'"
	}
	return "'" + punctChars[t.kind:t.kind+1] + "'"
}

// keyword reports whether t is the unquoted keyword kw (case-insensitive).
func (t dotToken) keyword(kw string) bool {
	return t.kind == tID && !t.quoted && strings.EqualFold(t.text, kw)
}

func (t dotToken) isKeyword() bool {
	for _, kw := range [...]string{"node", "edge", "graph", "digraph", "subgraph", "strict"} {
		if t.keyword(kw) {
			return true
		}
	}
	return false
}

type dotLexer struct {
	src       []byte
	i         int
	line, col int
	lineStart bool // only blanks so far on this line
}

type posError struct {
	at  pos
	msg string
}

func (e *posError) Error() string { return e.at.String() + ": " + e.msg }

func (lx *dotLexer) errf(at pos, format string, args ...any) error {
	return &posError{at, fmt.Sprintf(format, args...)}
}

func (lx *dotLexer) advance() {
	c := lx.src[lx.i]
	lx.i++
	switch {
	case c == '\n':
		lx.line++
		lx.col = 1
		lx.lineStart = true
	case c&0xC0 != 0x80: // count runes, not UTF-8 continuation bytes
		lx.col++
	}
}

func (lx *dotLexer) peekByte(k int) byte {
	if lx.i+k < len(lx.src) {
		return lx.src[lx.i+k]
	}
	return 0
}

func isIDByte(c byte) bool {
	return c == '_' || c == '.' || c >= 0x80 || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

func (lx *dotLexer) next() (dotToken, error) {
	// Skip blanks and comments.
	for lx.i < len(lx.src) {
		c := lx.src[lx.i]
		switch {
		case c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v':
			lx.advance()
			continue
		case c == '#' && lx.lineStart:
			for lx.i < len(lx.src) && lx.src[lx.i] != '\n' {
				lx.advance()
			}
			continue
		case c == '/' && lx.peekByte(1) == '/':
			for lx.i < len(lx.src) && lx.src[lx.i] != '\n' {
				lx.advance()
			}
			continue
		case c == '/' && lx.peekByte(1) == '*':
			at := pos{lx.line, lx.col}
			lx.advance()
			lx.advance()
			for {
				if lx.i >= len(lx.src) {
					return dotToken{}, lx.errf(at, "unterminated /* comment")
				}
				if lx.src[lx.i] == '*' && lx.peekByte(1) == '/' {
					lx.advance()
					lx.advance()
					break
				}
				lx.advance()
			}
			continue
		}
		break
	}
	at := pos{lx.line, lx.col}
	lx.lineStart = false
	if lx.i >= len(lx.src) {
		return dotToken{kind: tEOF, at: at}, nil
	}
	c := lx.src[lx.i]
	if k := punct(c); k != tEOF {
		lx.advance()
		return dotToken{kind: k, at: at}, nil
	}
	switch {
	case c == '-' && lx.peekByte(1) == '>':
		lx.advance()
		lx.advance()
		return dotToken{kind: tArrow, at: at}, nil
	case c == '-' && lx.peekByte(1) == '-':
		lx.advance()
		lx.advance()
		return dotToken{kind: tDash, at: at}, nil
	case c == '"':
		return lx.quoted(at)
	case c == '<':
		return lx.html(at)
	case isIDByte(c) || c == '-' && (isDigit(lx.peekByte(1)) || lx.peekByte(1) == '.'):
		start := lx.i
		lx.advance()
		for lx.i < len(lx.src) && isIDByte(lx.src[lx.i]) {
			lx.advance()
		}
		return dotToken{kind: tID, text: string(lx.src[start:lx.i]), at: at}, nil
	}
	return dotToken{}, lx.errf(at, "unexpected character %q", rune(c))
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// punctuation, indexed by kind.
const punctChars = "\x00\x00{}[]=;,:\x00\x00+"

// punct returns the kind of a one-byte token, or tEOF if c is none.
func punct(c byte) dotKind {
	if i := strings.IndexByte(punctChars, c); i >= 0 && c != 0 {
		return dotKind(i)
	}
	return tEOF
}

func (lx *dotLexer) quoted(at pos) (dotToken, error) {
	lx.advance() // opening quote
	var sb strings.Builder
	for {
		if lx.i >= len(lx.src) {
			return dotToken{}, lx.errf(at, "unterminated quoted string")
		}
		c := lx.src[lx.i]
		switch {
		case c == '"':
			lx.advance()
			return dotToken{kind: tID, text: sb.String(), quoted: true, at: at}, nil
		case c == '\\' && (lx.peekByte(1) == '"' || lx.peekByte(1) == '\\'):
			sb.WriteByte(lx.peekByte(1))
			lx.advance()
			lx.advance()
		case c == '\\' && lx.peekByte(1) == '\n': // line continuation
			lx.advance()
			lx.advance()
		case c == '\\' && lx.peekByte(1) == '\r' && lx.peekByte(2) == '\n':
			lx.advance()
			lx.advance()
			lx.advance()
		default:
			sb.WriteByte(c)
			lx.advance()
		}
	}
}

func (lx *dotLexer) html(at pos) (dotToken, error) {
	lx.advance() // opening <
	start := lx.i
	depth := 1
	for {
		if lx.i >= len(lx.src) {
			return dotToken{}, lx.errf(at, "unterminated <HTML> string")
		}
		switch lx.src[lx.i] {
		case '<':
			depth++
		case '>':
			depth--
			if depth == 0 {
				text := string(lx.src[start:lx.i])
				lx.advance()
				return dotToken{kind: tID, text: text, quoted: true, at: at}, nil
			}
		}
		lx.advance()
	}
}

// --- parser ---

type dotParser struct {
	lx   dotLexer
	name string
	tok  dotToken // current token

	strict  bool
	rg      rawGraph
	ids     map[string]ID // node name -> ID; lookups only
	edgeAt  map[[2]ID]int // edge -> index in rg.edges; lookups only
	nodeDef Node          // defaults from node [...]
	nodeSet attrs
	edgeDef int // tokens default from edge [...], as in Edge.Tokens
	edgeSet bool
	scratch []dotAttr
}

type dotAttr struct {
	key, val dotToken
}

func (p *dotParser) errf(at pos, format string, args ...any) error {
	return fmt.Errorf("%s:%s: %s", p.name, at, fmt.Sprintf(format, args...))
}

// advance moves to the next token.
func (p *dotParser) advance() error {
	t, err := p.lx.next()
	if err != nil {
		var pe *posError
		if errors.As(err, &pe) {
			return p.errf(pe.at, "%s", pe.msg)
		}
		return err
	}
	p.tok = t
	return nil
}

func (p *dotParser) parse() (*rawGraph, error) {
	p.ids = make(map[string]ID)
	p.edgeAt = make(map[[2]ID]int)
	if err := p.advance(); err != nil {
		return nil, err
	}
	if p.tok.keyword("strict") {
		p.strict = true
		if err := p.advance(); err != nil {
			return nil, err
		}
	}
	switch {
	case p.tok.keyword("graph"):
		return nil, p.errf(p.tok.at, "undirected graphs are not supported (use digraph)")
	case !p.tok.keyword("digraph"):
		return nil, p.errf(p.tok.at, "expected digraph, found %s", p.tok.describe())
	}
	if err := p.advance(); err != nil {
		return nil, err
	}
	if p.tok.kind == tID && !p.tok.isKeyword() { // graph name
		if _, err := p.id(); err != nil {
			return nil, err
		}
	}
	if p.tok.kind != tLBrace {
		return nil, p.errf(p.tok.at, "expected '{', found %s", p.tok.describe())
	}
	if err := p.advance(); err != nil {
		return nil, err
	}
	for p.tok.kind != tRBrace {
		if err := p.stmt(); err != nil {
			return nil, err
		}
	}
	if err := p.advance(); err != nil {
		return nil, err
	}
	if p.tok.kind != tEOF {
		return nil, p.errf(p.tok.at, "unexpected %s after the end of the graph (one digraph per file)", p.tok.describe())
	}
	return &p.rg, nil
}

// id reads the current ID token, with "a" + "b" concatenation, and leaves
// the next token current.
func (p *dotParser) id() (dotToken, error) {
	t := p.tok
	if err := p.advance(); err != nil {
		return t, err
	}
	for t.quoted && p.tok.kind == tPlus {
		if err := p.advance(); err != nil {
			return t, err
		}
		if p.tok.kind != tID || !p.tok.quoted {
			return t, p.errf(p.tok.at, "expected a quoted string after '+', found %s", p.tok.describe())
		}
		t.text += p.tok.text
		if err := p.advance(); err != nil {
			return t, err
		}
	}
	return t, nil
}

func (p *dotParser) stmt() error {
	t := p.tok
	switch {
	case t.kind == tEOF:
		return p.errf(t.at, "unexpected end of input: missing '}'")
	case t.kind == tSemi:
		return p.advance()
	case t.kind == tLBrace || t.keyword("subgraph"):
		return p.errf(t.at, "subgraphs are not supported")
	case t.keyword("node"), t.keyword("edge"), t.keyword("graph"):
		if err := p.advance(); err != nil {
			return err
		}
		if p.tok.kind != tLBrack {
			return p.errf(p.tok.at, "expected '[' after %s, found %s", strings.ToLower(t.text), p.tok.describe())
		}
		list, err := p.attrList()
		if err != nil {
			return err
		}
		switch strings.ToLower(t.text) {
		case "node":
			for _, a := range list {
				if err := p.nodeAttr(&p.nodeDef, &p.nodeSet, a, "node defaults"); err != nil {
					return err
				}
			}
		case "edge":
			for _, a := range list {
				if err := p.edgeAttr(&p.edgeDef, &p.edgeSet, a, "edge defaults"); err != nil {
					return err
				}
			}
		}
		return p.endStmt()
	case t.kind != tID || t.isKeyword():
		return p.errf(t.at, "expected a statement, found %s", t.describe())
	}

	first, err := p.id()
	if err != nil {
		return err
	}
	switch p.tok.kind {
	case tEq: // graph attribute: ignored
		if err := p.advance(); err != nil {
			return err
		}
		if p.tok.kind != tID {
			return p.errf(p.tok.at, "expected a value after '=', found %s", p.tok.describe())
		}
		if _, err := p.id(); err != nil {
			return err
		}
		return p.endStmt()
	case tColon:
		return p.errf(p.tok.at, "ports (node:port) are not supported")
	case tDash:
		return p.errf(p.tok.at, "undirected edge '--' in a digraph (use '->')")
	case tArrow:
		return p.edgeStmt(first)
	}
	// Node statement.
	v := p.node(first)
	if p.tok.kind == tLBrack {
		list, err := p.attrList()
		if err != nil {
			return err
		}
		nd, set := &p.rg.nodes[v], &p.rg.set[v]
		for _, a := range list {
			if err := p.nodeAttr(nd, set, a, fmt.Sprintf("node %q", nd.Name)); err != nil {
				return err
			}
		}
	}
	return p.endStmt()
}

func (p *dotParser) endStmt() error {
	if p.tok.kind == tSemi {
		return p.advance()
	}
	return nil
}

func (p *dotParser) edgeStmt(first dotToken) error {
	chain := []dotToken{first}
	for p.tok.kind == tArrow || p.tok.kind == tDash {
		if p.tok.kind == tDash {
			return p.errf(p.tok.at, "undirected edge '--' in a digraph (use '->')")
		}
		if err := p.advance(); err != nil {
			return err
		}
		switch {
		case p.tok.kind == tLBrace || p.tok.keyword("subgraph"):
			return p.errf(p.tok.at, "subgraphs are not supported")
		case p.tok.kind != tID || p.tok.isKeyword():
			return p.errf(p.tok.at, "expected a node after '->', found %s", p.tok.describe())
		}
		t, err := p.id()
		if err != nil {
			return err
		}
		if p.tok.kind == tColon {
			return p.errf(p.tok.at, "ports (node:port) are not supported")
		}
		chain = append(chain, t)
	}
	ids := make([]ID, len(chain))
	for i, t := range chain {
		ids[i] = p.node(t)
	}
	tokens, set := p.edgeDef, p.edgeSet
	if p.tok.kind == tLBrack {
		list, err := p.attrList()
		if err != nil {
			return err
		}
		for _, a := range list {
			if err := p.edgeAttr(&tokens, &set, a, "edge"); err != nil {
				return err
			}
		}
	}
	for i := 1; i < len(ids); i++ {
		from, to := ids[i-1], ids[i]
		if from == to {
			return p.errf(chain[i].at, "self loop on %q", chain[i].text)
		}
		key := [2]ID{from, to}
		if k, dup := p.edgeAt[key]; dup {
			if !p.strict {
				return p.errf(chain[i].at, "duplicate edge %q -> %q (a strict digraph merges duplicates)", chain[i-1].text, chain[i].text)
			}
			if set {
				p.rg.edges[k].Tokens = tokens
			}
			continue
		}
		p.edgeAt[key] = len(p.rg.edges)
		p.rg.edges = append(p.rg.edges, Edge{From: from, To: to, Tokens: tokens})
		p.rg.edgeAt = append(p.rg.edgeAt, chain[i-1].at.String())
	}
	return p.endStmt()
}

// node returns the ID of the named node, creating it with the current
// defaults at its first mention.
func (p *dotParser) node(t dotToken) ID {
	if v, ok := p.ids[t.text]; ok {
		return v
	}
	v := ID(len(p.rg.nodes))
	p.ids[t.text] = v
	nd := p.nodeDef
	nd.Name = t.text
	p.rg.nodes = append(p.rg.nodes, nd)
	p.rg.set = append(p.rg.set, p.nodeSet)
	return v
}

// attrList reads one or more [k=v ...] lists.
func (p *dotParser) attrList() ([]dotAttr, error) {
	list := p.scratch[:0]
	for p.tok.kind == tLBrack {
		if err := p.advance(); err != nil {
			return nil, err
		}
		for p.tok.kind != tRBrack {
			if p.tok.kind != tID {
				return nil, p.errf(p.tok.at, "expected an attribute name or ']', found %s", p.tok.describe())
			}
			key, err := p.id()
			if err != nil {
				return nil, err
			}
			if p.tok.kind != tEq {
				return nil, p.errf(p.tok.at, "expected '=' after attribute %q, found %s", key.text, p.tok.describe())
			}
			if err := p.advance(); err != nil {
				return nil, err
			}
			if p.tok.kind != tID {
				return nil, p.errf(p.tok.at, "expected a value for attribute %q, found %s", key.text, p.tok.describe())
			}
			val, err := p.id()
			if err != nil {
				return nil, err
			}
			list = append(list, dotAttr{key, val})
			if p.tok.kind == tComma || p.tok.kind == tSemi {
				if err := p.advance(); err != nil {
					return nil, err
				}
			}
		}
		if err := p.advance(); err != nil {
			return nil, err
		}
	}
	p.scratch = list
	return list, nil
}

// nodeAttr applies one attribute to nd; unknown attributes are ignored.
func (p *dotParser) nodeAttr(nd *Node, set *attrs, a dotAttr, who string) error {
	bad := func(format string, args ...any) error {
		return p.errf(a.val.at, "%s: %s: %s", who, a.key.text, fmt.Sprintf(format, args...))
	}
	s := a.val.text
	switch a.key.text {
	case "work":
		w, err := parseWork(s)
		if err != nil {
			return bad("%v", err)
		}
		nd.Work, *set = w, *set|hasWork
	case "difficulty":
		f, err := strconv.ParseFloat(s, 64)
		if err != nil || !(f >= 0 && f < 1) {
			return bad("%q is not a number in [0, 1)", s)
		}
		nd.Difficulty, *set = f, *set|hasDifficulty
	case "coupling":
		f, err := strconv.ParseFloat(s, 64)
		if err != nil || !(f >= 0 && f <= 1) {
			return bad("%q is not a number in [0, 1]", s)
		}
		nd.Coupling, *set = f, *set|hasCoupling
	case "tokens":
		k, err := strconv.Atoi(s)
		if err != nil || k < 0 || k > MaxTokens {
			return bad("%q is not an integer in [0, %d]", s, MaxTokens)
		}
		nd.OutputTokens, *set = k, *set|hasTokens
	case "loop":
		k, err := strconv.Atoi(s)
		if err != nil || k < 0 || k > MaxLoop {
			return bad("%q is not an integer in [0, %d]", s, MaxLoop)
		}
		nd.Loop, *set = k, *set|hasLoop
	case "join":
		j, err := parseJoin(s)
		if err != nil {
			return bad("%v", err)
		}
		nd.Join, *set = j, *set|hasJoin
	}
	return nil
}

func (p *dotParser) edgeAttr(tokens *int, set *bool, a dotAttr, who string) error {
	if a.key.text != "tokens" {
		return nil
	}
	k, err := strconv.Atoi(a.val.text)
	if err != nil || k < 0 || k > MaxTokens {
		return p.errf(a.val.at, "%s: tokens: %q is not an integer in [0, %d]", who, a.val.text, MaxTokens)
	}
	if k == 0 {
		k = NoTokens
	}
	*tokens, *set = k, true
	return nil
}

// workRange is the range of a node's work in seconds, for messages: what
// a simulated time holds.
var workRange = fmt.Sprintf("[0, %.4g] seconds (about 292 years, the longest a simulated time holds)", sim.MaxTime.Seconds())

// parseWork reads a duration ("90s", "1m30s") or a number of seconds.
func parseWork(s string) (sim.Time, error) {
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		if f < 0 {
			return 0, fmt.Errorf("%q is negative", s)
		}
		t, err := sim.FromSeconds(f)
		if err != nil {
			return 0, fmt.Errorf("%q is out of range %s", s, workRange)
		}
		return t, nil
	}
	t, err := sim.ParseTime(s)
	if err != nil {
		return 0, fmt.Errorf("%q is not a duration such as 90s or a number of seconds", s)
	}
	if t < 0 {
		return 0, fmt.Errorf("%q is negative", s)
	}
	return t, nil
}

// --- writer ---

// WriteDOT writes g in the DOT language, for Graphviz and for ReadDOT, which
// reads it back to an equal graph. Attributes equal to their zero value are
// left out; an edge gets a tokens attribute only where it does not carry its
// producer's OutputTokens.
func WriteDOT(w io.Writer, g *Graph) error {
	bw := bufio.NewWriter(w)
	bw.WriteString("digraph {\n")
	var attrs []string
	for v := range g.Nodes {
		nd := &g.Nodes[v]
		attrs = attrs[:0]
		if nd.Work != 0 {
			attrs = append(attrs, `work="`+time.Duration(nd.Work).String()+`"`)
		}
		if nd.Difficulty != 0 {
			attrs = append(attrs, `difficulty="`+strconv.FormatFloat(nd.Difficulty, 'g', -1, 64)+`"`)
		}
		if nd.OutputTokens != 0 {
			attrs = append(attrs, `tokens="`+strconv.Itoa(nd.OutputTokens)+`"`)
		}
		if nd.Coupling != 0 {
			attrs = append(attrs, `coupling="`+strconv.FormatFloat(nd.Coupling, 'g', -1, 64)+`"`)
		}
		if nd.Loop != 0 {
			attrs = append(attrs, `loop="`+strconv.Itoa(nd.Loop)+`"`)
		}
		if nd.Join != JoinAll {
			attrs = append(attrs, `join="`+nd.Join.String()+`"`)
		}
		bw.WriteString("\t")
		writeDOTID(bw, nd.Name)
		if len(attrs) > 0 {
			bw.WriteString(" [" + strings.Join(attrs, ", ") + "]")
		}
		bw.WriteString(";\n")
	}
	for v := range g.Nodes {
		out := g.Nodes[v].OutputTokens
		toks := g.SuccTokens(ID(v))
		for k, s := range g.Succ(ID(v)) {
			bw.WriteString("\t")
			writeDOTID(bw, g.Nodes[v].Name)
			bw.WriteString(" -> ")
			writeDOTID(bw, g.Nodes[s].Name)
			if toks[k] != out {
				bw.WriteString(` [tokens="` + strconv.Itoa(toks[k]) + `"]`)
			}
			bw.WriteString(";\n")
		}
	}
	bw.WriteString("}\n")
	return bw.Flush()
}

func writeDOTID(bw *bufio.Writer, s string) {
	bw.WriteByte('"')
	for i := 0; i < len(s); i++ {
		if s[i] == '"' || s[i] == '\\' {
			bw.WriteByte('\\')
		}
		bw.WriteByte(s[i])
	}
	bw.WriteByte('"')
}

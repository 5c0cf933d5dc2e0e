package experiment

import "strings"

// FileName turns a name into one safe in a file name: letters, digits,
// '-', '_' and '.' are kept, anything else becomes '_'.
func FileName(name string) string {
	s := strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.':
			return r
		}
		return '_'
	}, name)
	if s == "" || strings.Trim(s, ".") == "" {
		s = "_" + s
	}
	return s
}

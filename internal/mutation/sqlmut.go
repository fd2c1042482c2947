package mutation

import (
	"strings"
)

// SQL in string literals: the store's behaviour is mostly its SQL, which
// Go-level mutants never touch. sqlChanges finds, in a Go string literal
// that reads as SQL, the changes a planted bug in a query would make:
//
//   - a comparison moved across its boundary or negated (<, <=, >, >=),
//   - an equality in a condition negated (= to <>; not an assignment of a
//     SET list),
//   - AND turned into OR,
//   - a NOT dropped (NOT EXISTS, NOT published),
//   - an addition turned into a subtraction and back (attempt + 1).
//
// Operators count only with a space on each side, as the store writes
// them, so a string holding a '<' in other text is left alone.

// sqlChange is one change at byte offset off of the literal's source text.
type sqlChange struct {
	off      int
	old, new string
}

// sqlKeywords mark a literal as SQL: at least one must appear.
var sqlKeywords = []string{"SELECT ", "UPDATE ", "INSERT ", "DELETE ", " WHERE ", " AND ", "NOT EXISTS", " ORDER BY "}

func looksLikeSQL(text string) bool {
	for _, k := range sqlKeywords {
		if strings.Contains(text, k) {
			return true
		}
	}
	return false
}

// sqlSwaps are the operator changes, in the order tried at each place (the
// two-character operators before their one-character prefixes).
var sqlSwaps = []struct {
	old  string
	news []string
}{
	{" <= ", []string{" < ", " > "}},
	{" >= ", []string{" > ", " < "}},
	{" <> ", []string{" = "}},
	{" < ", []string{" <= ", " >= "}},
	{" > ", []string{" >= ", " <= "}},
	{" = ", []string{" <> "}}, // only in a condition: see inCondition
	{" AND ", []string{" OR "}},
	{"NOT ", []string{""}},
	{" + ", []string{" - "}},
	{" - ", []string{" + "}},
}

func sqlChanges(text string) []sqlChange {
	if !looksLikeSQL(text) {
		return nil
	}
	var out []sqlChange
	for i := 0; i < len(text); {
		matched := false
		for _, sw := range sqlSwaps {
			if !strings.HasPrefix(text[i:], sw.old) {
				continue
			}
			if sw.old == " = " && !inCondition(text[:i]) {
				break
			}
			if sw.old == "NOT " && i > 0 && isWordByte(text[i-1]) {
				break // part of a word (CANNOT)
			}
			for _, n := range sw.news {
				out = append(out, sqlChange{off: i, old: sw.old, new: n})
			}
			i += len(sw.old) - 1 // the closing space may open the next operator
			matched = true
			break
		}
		if !matched {
			i++
		}
	}
	return out
}

// inCondition reports whether an " = " after before compares (in a WHERE,
// ON or WHEN condition, or after AND/OR) rather than assigns (in a SET
// list): whichever keyword comes last decides.
func inCondition(before string) bool {
	last := func(k string) int { return strings.LastIndex(before, k) }
	set := last(" SET ")
	cond := max(last("WHERE "), last(" AND "), last(" OR "), last(" ON "), last(" WHEN "))
	return cond > set
}

func isWordByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

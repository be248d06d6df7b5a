package operation

import "slices"

// nonNilSlice is s, or an empty slice for nil, so that empty lists stay [] in JSON.
func nonNilSlice[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// mapAll converts every element; the result is never nil, so empty lists stay [] in JSON.
func mapAll[T, U any](in []T, f func(T) U) []U {
	out := make([]U, len(in))
	for i, v := range in {
		out[i] = f(v)
	}
	return out
}

// unique de-duplicates ids, keeping the first of each.
func unique(ids []string) []string {
	out := make([]string, 0, len(ids))
	for _, id := range ids {
		if !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	return out
}

package operation

import (
	"strings"
)

func fullName(first, last string) string { return strings.TrimSpace(first + " " + last) }

package feature

import (
	"fmt"
	"strconv"
	"strings"
)

// parseRelease reads the leading dotted numbers of a kernel release
// ("6.18.44-fc" -> [6 18 44]).
func parseRelease(s string) ([]int, error) {
	var v []int
	for _, part := range strings.SplitN(s, ".", 3) {
		end := 0
		for end < len(part) && part[end] >= '0' && part[end] <= '9' {
			end++
		}
		if end == 0 {
			break
		}
		n, err := strconv.Atoi(part[:end])
		if err != nil {
			return nil, err
		}
		v = append(v, n)
		if end < len(part) {
			break
		}
	}
	if len(v) == 0 {
		return nil, fmt.Errorf("feature: kernel release %q does not start with a version", s)
	}
	return v, nil
}

// compareRelease compares two releases numerically ("6.9" < "6.18"); a
// missing component counts as 0.
func compareRelease(a, b string) (int, error) {
	va, err := parseRelease(a)
	if err != nil {
		return 0, err
	}
	vb, err := parseRelease(b)
	if err != nil {
		return 0, err
	}
	for i := 0; i < len(va) || i < len(vb); i++ {
		var x, y int
		if i < len(va) {
			x = va[i]
		}
		if i < len(vb) {
			y = vb[i]
		}
		if x != y {
			if x < y {
				return -1, nil
			}
			return 1, nil
		}
	}
	return 0, nil
}

// KernelAtLeast reports whether the running kernel's release is release
// ("6.7") or newer.
func KernelAtLeast(release string) (bool, error) {
	c, err := compareRelease(KernelRelease(), release)
	return c >= 0, err
}

package bench

import (
	"fmt"
	"math"
)

// FormatValue prints v compactly: 1.23M, 456K, 12.3, 0.123.
func FormatValue(v float64) string {
	a := math.Abs(v)
	switch {
	case v == 0:
		return "0"
	case a >= 1e9:
		return trim(fmt.Sprintf("%.3g", v/1e9)) + "G"
	case a >= 1e6:
		return trim(fmt.Sprintf("%.3g", v/1e6)) + "M"
	case a >= 1e4:
		return trim(fmt.Sprintf("%.3g", v/1e3)) + "K"
	case a >= 100:
		return fmt.Sprintf("%.0f", v)
	case a >= 10:
		return fmt.Sprintf("%.1f", v)
	default:
		return fmt.Sprintf("%.3g", v)
	}
}

func trim(s string) string { return s }

// FormatRatio prints a ratio as "1.23x".
func FormatRatio(r float64) string {
	if r == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2fx", r)
}

// formatX prints a point's x: sizes as 4K/1M, the rest as numbers.
func formatX(axis string, x int64) string {
	if axis == "size" {
		return FormatSize(x)
	}
	if x >= 1000000 && x%1000000 == 0 {
		return fmt.Sprintf("%dM", x/1000000)
	}
	if x >= 1000 && x%1000 == 0 {
		return fmt.Sprintf("%dk", x/1000)
	}
	return fmt.Sprint(x)
}

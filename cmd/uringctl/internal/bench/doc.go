// Package bench holds the workloads behind `uringctl bench`: each measures
// the project beside its Go-standard-library baseline in the same process,
// alternating project and baseline runs rep by rep, and reports the median of
// each and their ratio (these machines are shared and noisy: a ratio measured
// side by side means more than an absolute number). See
// docs/BENCHMARKS.md for the workloads and their goals.
//
// Output: Point is the schema of one measured point (the --json output, one
// object per line); WriteTable prints points as a table; WriteSVG draws a
// sweep as a line chart (value against the swept parameter, one line per
// implementation, one panel per mode), written by hand as SVG text.
//
// Ratio is always "how many times better the project is": value/baseline
// for rates (IOPS, MB/s, req/s), baseline/value for costs (ns/op), so
// ratio > 1 means the project wins whatever the unit.
//
// Workloads are Linux-only; elsewhere Run reports that they are not
// available. Peers that are programs (fio, wrk, a C liburing NOP loop built
// with gcc) are used when installed and skipped quietly when not.
package bench

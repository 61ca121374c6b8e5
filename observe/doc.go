// Package observe holds what watches a run without changing it and uses no
// Lua: the Chrome trace-event timeline, the ranks' printed lines in (virtual
// time, rank) order, per-primitive statistics and the MMDS records. Each
// writes the same bytes for any number of partitions.
package observe

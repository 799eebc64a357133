package gpu

// Joins run on the device as a few general primitives rather than one
// operator per join type: HashJoin finds the matching row pairs of an
// equi-join, Gather builds columns from row indexes, Unmatched finds the
// rows a join left out, Concat appends. The engine (physical/) composes
// them into inner, outer, semi, anti and single joins, with residual
// conditions evaluated by an ordinary Pipeline over the gathered pairs
// before the outer/semi/anti step, so every device shares one definition of
// the semantics.
//
// Row indexes are Int32 columns that are never nullable; a negative index
// means "no row" (only Gather with padNulls accepts it).
//
// HashJoin(build, probe, nullsEqual) returns the pairs (p, b) of probe row p
// and build row b whose key columns are all equal: build[i] and probe[i]
// are the i-th key of each side; they have equal Kinds (and Scales for
// decimals). Dict keys compare their strings: where the two sides carry
// different dictionaries, devices map the probe side's codes into the
// build side's dictionary (DictCodeMap). A null key matches nothing, unless nullsEqual[i] (IS NOT
// DISTINCT FROM), where null equals null. Floats compare as everywhere in
// the IR (NaN = NaN, -0 = 0). The pairs come in no particular order; the
// two returned columns are equally long. nullsEqual may be nil (all false).
//
// Gather(cols, idx, padNulls) returns, for each column, the values at the
// rows idx holds, in idx order (an index may repeat). Without padNulls every
// index must be in [0, Len); with padNulls a negative index gives a null and
// every output column is typed nullable. Dict columns keep their
// dictionary.
//
// Unmatched(idx, n) returns, in ascending order, the rows of [0, n) that
// idx does not hold (negative indexes are ignored): the rows an outer join
// pads, an anti join keeps. A semi join's rows are the unmatched rows of the
// unmatched rows.
//
// Concat(parts) appends equally shaped column lists: parts[k][i] has the
// Kind (and Scale) of parts[0][i]; the output column i is nullable when any
// part's is. Dict columns of different dictionaries (a UNION of two
// tables' strings) come out under their merged dictionary
// (MergeDictionaries), each part's codes mapped into it.

// JoinIndexType is the type of the row-index columns of the join primitives.
var JoinIndexType = Type{Kind: Int32}

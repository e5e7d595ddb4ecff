/**
 * Indices of a longest strictly increasing subsequence of `values[0..count)`, in order, found by
 * patience sorting in O(count · log count).
 */
export function longestIncreasingChain(values: Int32Array, count: number): Int32Array {
  const tails = new Int32Array(count)
  const previous = new Int32Array(count)
  let length = 0
  for (let k = 0; k < count; k++) {
    const value = values[k]!
    let low = 0
    let high = length
    while (low < high) {
      const middle = (low + high) >>> 1
      if (values[tails[middle]!]! < value) low = middle + 1
      else high = middle
    }
    previous[k] = low > 0 ? tails[low - 1]! : -1
    tails[low] = k
    if (low === length) length++
  }
  const chain = new Int32Array(length)
  let k = length > 0 ? tails[length - 1]! : -1
  for (let r = length - 1; r >= 0; r--) {
    chain[r] = k
    k = previous[k]!
  }
  return chain
}

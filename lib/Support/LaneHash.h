//===- LaneHash.h - fast 64-bit hash of large byte ranges -------*- C++ -*-===//
//
// The artifact checksum runs over whole model files of hundreds of MB at
// every load, so it reads 8-byte little-endian words into four independent
// multiply-rotate lanes (the CPU overlaps their multiplies) and mixes them at
// the end. It detects corruption, not tampering: it is not cryptographic.
// Header only and dependency free: the compiler and the runtime share it.
//
//===----------------------------------------------------------------------===//
#ifndef GRAPHC_LIB_SUPPORT_LANEHASH_H
#define GRAPHC_LIB_SUPPORT_LANEHASH_H

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace graphc {

/// Incremental hash: update() over any split of the bytes gives the same
/// result as one update() over all of them.
class LaneHasher {
public:
  void update(const void *data, size_t size) {
    if (size == 0) // data may be null then
      return;
    const auto *bytes = static_cast<const unsigned char *>(data);
    length += size;
    if (pending) {
      size_t take = size < kStripe - pending ? size : kStripe - pending;
      std::memcpy(buffer + pending, bytes, take);
      pending += take;
      bytes += take;
      size -= take;
      if (pending < kStripe)
        return;
      consumeStripe(buffer);
      pending = 0;
    }
    for (; size >= kStripe; bytes += kStripe, size -= kStripe)
      consumeStripe(bytes);
    std::memcpy(buffer, bytes, size);
    pending = size;
  }

  uint64_t finish() const {
    uint64_t hash = rotl(lanes[0], 1) + rotl(lanes[1], 7) +
                    rotl(lanes[2], 12) + rotl(lanes[3], 18);
    for (uint64_t lane : lanes)
      hash = (hash ^ round(0, lane)) * kMulA + kMulC;
    hash += length;
    size_t at = 0;
    for (; at + 8 <= pending; at += 8)
      hash = rotl(hash ^ round(0, load64(buffer + at)), 27) * kMulA + kMulC;
    for (; at < pending; ++at)
      hash = rotl(hash ^ (buffer[at] * kMulC), 11) * kMulA;
    // Final avalanche, so that every input bit reaches every output bit.
    hash ^= hash >> 30;
    hash *= kMulB;
    hash ^= hash >> 27;
    hash *= kMulC;
    hash ^= hash >> 31;
    return hash;
  }

private:
  static constexpr size_t kStripe = 32;
  static constexpr uint64_t kMulA = 0x9e3779b97f4a7c15ull;
  static constexpr uint64_t kMulB = 0xbf58476d1ce4e5b9ull;
  static constexpr uint64_t kMulC = 0x94d049bb133111ebull;

  static uint64_t rotl(uint64_t value, int bits) {
    return (value << bits) | (value >> (64 - bits));
  }
  static uint64_t load64(const unsigned char *bytes) {
    uint64_t word;
    std::memcpy(&word, bytes, sizeof(word));
    return word;
  }
  static uint64_t round(uint64_t lane, uint64_t word) {
    return rotl(lane + word * kMulB, 31) * kMulA;
  }
  void consumeStripe(const unsigned char *stripe) {
    lanes[0] = round(lanes[0], load64(stripe));
    lanes[1] = round(lanes[1], load64(stripe + 8));
    lanes[2] = round(lanes[2], load64(stripe + 16));
    lanes[3] = round(lanes[3], load64(stripe + 24));
  }

  uint64_t lanes[4] = {kMulA + kMulB, kMulB, 0, 0 - kMulA};
  uint64_t length = 0;
  unsigned char buffer[kStripe] = {};
  size_t pending = 0;
};

/// The hash of `size` bytes at `data`.
inline uint64_t laneHash64(const void *data, size_t size) {
  LaneHasher hasher;
  hasher.update(data, size);
  return hasher.finish();
}

} // namespace graphc

#endif

#pragma once
// Stable generational ids for everything a client can name.
//
// An id is (index, generation). The index names a slot; the generation counts
// how many times that slot has been reused, so an id of a removed object never
// names a new one. Generation 0 is never handed out: a default-constructed id
// is null.

#include <cstdint>
#include <functional>

namespace linkage {

template <class Tag>
struct Id {
  std::uint32_t index = 0;
  std::uint32_t generation = 0;

  constexpr bool is_null() const { return generation == 0; }
  friend constexpr bool operator==(Id, Id) = default;
  friend constexpr auto operator<=>(Id, Id) = default;
};

struct BodyTag {};
struct ConstraintTag {};
struct ForceTag {};

using BodyId = Id<BodyTag>;
using ConstraintId = Id<ConstraintTag>;
using ForceId = Id<ForceTag>;

}  // namespace linkage

template <class Tag>
struct std::hash<linkage::Id<Tag>> {
  std::size_t operator()(linkage::Id<Tag> id) const noexcept {
    return std::hash<std::uint64_t>{}((std::uint64_t{id.generation} << 32) | id.index);
  }
};

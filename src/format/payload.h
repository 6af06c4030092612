// A chunk payload handed from a capture thread to the writer: malloc'd bytes
// that travel without copying and come back through acquire_buffer() for
// reuse, so steady-state capture allocates nothing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <utility>

#include "protowire/wire.h"

namespace gltrace::format {

class Payload {
 public:
  Payload() = default;
  // Takes ownership of free()-compatible memory.
  Payload(uint8_t* data, size_t size, size_t capacity)
      : data_(data), size_(size), capacity_(capacity) {}
  Payload(Payload&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)),
        size_(std::exchange(other.size_, 0)),
        capacity_(std::exchange(other.capacity_, 0)) {}
  Payload& operator=(Payload&& other) noexcept {
    if (this != &other) {
      free(data_);
      data_ = std::exchange(other.data_, nullptr);
      size_ = std::exchange(other.size_, 0);
      capacity_ = std::exchange(other.capacity_, 0);
    }
    return *this;
  }
  Payload(const Payload&) = delete;
  Payload& operator=(const Payload&) = delete;
  ~Payload() { free(data_); }

  // The encoder's bytes become the payload; the encoder is left empty.
  static Payload from_encoder(wire::Encoder& encoder) {
    size_t size = 0;
    size_t capacity = 0;
    uint8_t* data = encoder.release(&size, &capacity);
    return {data, size, capacity};
  }
  // Hands the memory to an encoder to fill (its old buffer is freed, so
  // call this on an encoder emptied by from_encoder).
  void give_to(wire::Encoder& encoder) {
    encoder.adopt(data_, capacity_);
    data_ = nullptr;
    size_ = capacity_ = 0;
  }

  const uint8_t* data() const { return data_; }
  size_t size() const { return size_; }
  size_t capacity() const { return capacity_; }
  void clear() { size_ = 0; }

 private:
  uint8_t* data_ = nullptr;
  size_t size_ = 0;
  size_t capacity_ = 0;
};

}  // namespace gltrace::format

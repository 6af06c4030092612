#include "format/reader.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include <algorithm>
#include <cinttypes>
#include <condition_variable>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <new>
#include <thread>
#include <vector>

#include "format/container.h"
#include "format/crc32.h"

namespace gltrace::format {

namespace {

// A buffer that only grows, without zero-filling what it will overwrite.
struct Buffer {
  std::unique_ptr<uint8_t[]> data;
  size_t capacity = 0;

  bool reserve(size_t n) {
    if (n <= capacity) return true;
    size_t grown = std::max(n, std::min(capacity * 2, size_t{kMaxRawSize} + (1u << 20)));
    data.reset(new (std::nothrow) uint8_t[grown]);
    capacity = data != nullptr ? grown : 0;
    return data != nullptr;
  }
};

bool prefix_matches(const uint8_t* bytes, size_t got, const char* magic, size_t magic_size) {
  return memcmp(bytes, magic, std::min(got, magic_size)) == 0;
}

// The content size that the zstd frames of a chunk declare together (one
// with a times column holds two, writer.cpp), or ZSTD_CONTENTSIZE_UNKNOWN
// or _ERROR. Past UINT32_MAX it stops: no chunk holds more.
unsigned long long declared_content_size(const uint8_t* stored, size_t size) {
  unsigned long long total = 0;
  while (size > 0 && total <= UINT32_MAX) {
    unsigned long long n = ZSTD_getFrameContentSize(stored, size);
    if (n == ZSTD_CONTENTSIZE_ERROR || n == ZSTD_CONTENTSIZE_UNKNOWN) return n;
    size_t frame = ZSTD_findFrameCompressedSize(stored, size);
    if (ZSTD_isError(frame) || frame == 0 || frame > size) return ZSTD_CONTENTSIZE_ERROR;
    total += std::min<unsigned long long>(n, UINT32_MAX + 1ULL);
    stored += frame;
    size -= frame;
  }
  return total;
}

}  // namespace

struct ChunkReader::Impl {
  enum class Source { kNone, kMemory, kFile, kStream };

  Source source = Source::kNone;
  std::span<const uint8_t> memory;
  int fd = -1;
  uint64_t size = 0;        // of a file or memory buffer
  uint64_t stream_pos = 0;  // bytes consumed from a stream
  uint64_t pos = 0;         // the next chunk's offset
  ReadStatus status;
  Index index;
  bool has_index = false;
  std::string index_error;
  Buffer head_buffer;
  Buffer stored_buffer;
  Buffer raw_buffer;
  ZSTD_DCtx* dctx = nullptr;

  ~Impl() {
    ZSTD_freeDCtx(dctx);
    if (fd >= 0) ::close(fd);
  }

  bool set(ReadState state, uint64_t offset, const char* fmt, ...)
      __attribute__((format(printf, 4, 5))) {
    char message[512];
    va_list list;
    va_start(list, fmt);
    vsnprintf(message, sizeof message, fmt, list);
    va_end(list);
    status.state = state;
    status.offset = offset;
    status.message = message;
    return false;
  }
  bool cut_short(uint64_t offset, const char* what) {
    return set(ReadState::kCutShort, offset,
               "trace cut short at offset %" PRIu64 ": incomplete %s (%" PRIu64
               " complete chunks read)",
               offset, what, status.chunks);
  }

  // Up to n bytes at offset: a pointer into memory, or into `into` after
  // reading them. *got < n at the end of the input; null on an I/O error.
  const uint8_t* fetch(uint64_t offset, size_t n, Buffer* into, size_t* got) {
    *got = 0;
    if (source == Source::kMemory) {
      static const uint8_t kNothing = 0;  // non-null: null means an error
      if (offset >= size) return &kNothing;
      *got = static_cast<size_t>(std::min<uint64_t>(n, size - offset));
      return memory.data() + offset;
    }
    if (!into->reserve(std::max<size_t>(n, 1))) {
      set(ReadState::kIoError, offset, "out of memory reading %zu bytes at offset %" PRIu64, n,
          offset);
      return nullptr;
    }
    if (source == Source::kStream && offset != stream_pos) {
      set(ReadState::kIoError, offset,
          "cannot seek in a stream (at %" PRIu64 ", asked %" PRIu64 ")", stream_pos, offset);
      return nullptr;
    }
    while (*got < n) {
      ssize_t r = source == Source::kFile ? pread(fd, into->data.get() + *got, n - *got,
                                                  static_cast<off_t>(offset + *got))
                                          : read(fd, into->data.get() + *got, n - *got);
      if (r < 0 && errno == EINTR) continue;
      if (r < 0) {
        set(ReadState::kIoError, offset + *got, "read error at offset %" PRIu64 ": %s",
            offset + *got, strerror(errno));
        return nullptr;
      }
      if (r == 0) break;
      *got += static_cast<size_t>(r);
    }
    if (source == Source::kStream) stream_pos += *got;
    return into->data.get();
  }

  bool open_header() {
    size_t got = 0;
    const uint8_t* h = fetch(0, kFileHeaderSize, &head_buffer, &got);
    if (h == nullptr) return false;
    if (got == 0) return set(ReadState::kCorrupt, 0, "empty file");
    if (!prefix_matches(h, got, kFileMagic, sizeof kFileMagic))
      return set(ReadState::kCorrupt, 0, "not a gltrace file (bad magic) at offset 0");
    if (got < kFileHeaderSize) return cut_short(0, "file header");
    uint32_t version = get_u32(h + 8);
    if (version < kOldestFormatVersion || version > kFormatVersion) {
      return set(ReadState::kCorrupt, 8,
                 "unsupported format version %" PRIu32
                 " at offset 8 (this gltrace reads versions %" PRIu32 " to %" PRIu32 ")",
                 version, kOldestFormatVersion, kFormatVersion);
    }
    uint32_t flags = get_u32(h + 12);
    if (flags != 0) {
      return set(ReadState::kCorrupt, 12,
                 "unsupported file flags 0x%" PRIx32 " at offset 12 (the format has none)", flags);
    }
    pos = kFileHeaderSize;
    status = ReadStatus{};
    if (source != Source::kStream) {
      load_index();
      status = ReadStatus{};  // a bad index is index_error(), not the trace's status
    }
    return true;
  }

  // Reads, checks and decompresses the chunk whose header is at `offset`.
  // On failure sets *error (or, when the input ends inside it, *cut).
  bool load_chunk(uint64_t offset, const ChunkHeader& header, std::span<const uint8_t>* payload,
                  std::string* error, bool* cut) {
    std::string why = check_chunk_header(header, offset);
    if (!why.empty()) return *error = why, false;
    // A file too short for the chunk is cut short before anything is allocated
    // for it (the size is looked up again: the file may still be growing).
    uint64_t end = offset + kChunkHeaderSize + header.stored_size;
    if (source == Source::kFile && end > size) {
      struct stat st {};
      if (fstat(fd, &st) == 0) size = static_cast<uint64_t>(st.st_size);
      if (end > size) return *cut = true, false;
    }
    size_t got = 0;
    const uint8_t* stored =
        fetch(offset + kChunkHeaderSize, header.stored_size, &stored_buffer, &got);
    if (stored == nullptr) return *error = status.message, false;
    if (got < header.stored_size) return *cut = true, false;
    char message[256];
    if (crc32(stored, header.stored_size) != header.crc) {
      snprintf(message, sizeof message, "CRC mismatch in chunk at offset %" PRIu64, offset);
      return *error = message, false;
    }
    if (header.compression() == kCodecNone) {
      *payload = std::span<const uint8_t>(stored, header.stored_size);
      return true;
    }
    // The frame headers say the size too: a mismatch is caught before the
    // buffer is sized for the claim.
    unsigned long long declared = declared_content_size(stored, header.stored_size);
    if (declared != ZSTD_CONTENTSIZE_ERROR && declared != ZSTD_CONTENTSIZE_UNKNOWN &&
        declared != header.raw_size) {
      snprintf(message, sizeof message,
               "chunk at offset %" PRIu64
               " holds a zstd frame of %llu bytes, its header says %" PRIu32,
               offset, declared, header.raw_size);
      return *error = message, false;
    }
    if (!raw_buffer.reserve(header.raw_size)) {
      snprintf(message, sizeof message, "out of memory for chunk at offset %" PRIu64, offset);
      return *error = message, false;
    }
    if (dctx == nullptr) dctx = ZSTD_createDCtx();
    if (dctx == nullptr) return *error = "cannot create a zstd decompression context", false;
    // One-shot: zstd writes straight into the buffer sized by the (checked)
    // raw size, so a hostile frame header cannot make it allocate a window.
    size_t n = ZSTD_decompressDCtx(dctx, raw_buffer.data.get(), header.raw_size, stored,
                                   header.stored_size);
    if (ZSTD_isError(n)) {
      snprintf(message, sizeof message, "chunk at offset %" PRIu64 " does not decompress: zstd: %s",
               offset, ZSTD_getErrorName(n));
      return *error = message, false;
    }
    if (n != header.raw_size) {
      snprintf(message, sizeof message,
               "chunk at offset %" PRIu64 " decompresses to %zu bytes, its header says %" PRIu32,
               offset, n, header.raw_size);
      return *error = message, false;
    }
    *payload = std::span<const uint8_t>(raw_buffer.data.get(), header.raw_size);
    return true;
  }

  void load_index() {
    if (size < kFileHeaderSize + kChunkHeaderSize + kFooterSize) return;
    uint64_t footer_offset = size - kFooterSize;
    size_t got = 0;
    const uint8_t* footer = fetch(footer_offset, kFooterSize, &head_buffer, &got);
    if (footer == nullptr || got < kFooterSize ||
        memcmp(footer, kFooterMagic, sizeof kFooterMagic) != 0) {
      return;  // no footer: the trace reads without an index
    }
    uint64_t offset = get_u64(footer + 8);
    char message[256];
    if (offset < kFileHeaderSize || offset > footer_offset - kChunkHeaderSize) {
      snprintf(message, sizeof message,
               "footer at offset %" PRIu64 " points to offset %" PRIu64 ", outside the trace",
               footer_offset, offset);
      index_error = message;
      return;
    }
    ChunkHeader header;
    const uint8_t* h = fetch(offset, kChunkHeaderSize, &head_buffer, &got);
    if (h == nullptr || !decode_chunk_header(h, &header) || !header.is_index() ||
        offset + kChunkHeaderSize + header.stored_size != footer_offset) {
      snprintf(message, sizeof message,
               "no index chunk at offset %" PRIu64 " (where the footer at offset %" PRIu64
               " points) ending at the footer",
               offset, footer_offset);
      index_error = message;
      return;
    }
    std::span<const uint8_t> payload;
    std::string error;
    bool cut = false;
    if (!load_chunk(offset, header, &payload, &error, &cut)) {
      index_error = cut ? "index chunk cut short" : error;
      return;
    }
    RecordDecoder decoder;
    if (!decoder.decode_index(payload, &index, kMaxIndexEntries)) {
      snprintf(message, sizeof message, "index chunk at offset %" PRIu64 ", byte %zu: %s", offset,
               decoder.error_offset(), decoder.error().c_str());
      index_error = message;
      index.entries.clear();
      return;
    }
    for (const IndexEntry& e : index.entries) {
      if (e.chunk_offset < kFileHeaderSize || e.chunk_offset >= offset) {
        snprintf(message, sizeof message,
                 "index chunk at offset %" PRIu64 ": entry for frame %" PRIu64
                 " points to offset %" PRIu64 ", outside the trace",
                 offset, e.frame, e.chunk_offset);
        index_error = message;
        index.entries.clear();
        return;
      }
    }
    has_index = true;
  }

  bool next(ChunkView* chunk) {
    while (status.state == ReadState::kReading) {
      uint64_t offset = pos;
      size_t got = 0;
      const uint8_t* h = fetch(offset, kChunkHeaderSize, &head_buffer, &got);
      if (h == nullptr) return false;
      if (got == 0) {  // ends between chunks: a stream, or a file without footer
        status.state = ReadState::kEnd;
        status.offset = offset;
        return false;
      }
      // "GT" starts both a chunk and the footer; the third byte tells them apart.
      if (got >= 3 && prefix_matches(h, got, kFooterMagic, sizeof kFooterMagic)) {
        if (got < kFooterSize) return cut_short(offset, "footer");
        if (got > kFooterSize)
          return set(ReadState::kCorrupt, offset + kFooterSize,
                     "data after the footer at offset %" PRIu64, offset + kFooterSize);
        status.state = ReadState::kEnd;
        status.offset = offset;
        status.closed_cleanly = true;
        return false;
      }
      if (!prefix_matches(h, got, kChunkMagic, sizeof kChunkMagic))
        return set(ReadState::kCorrupt, offset, "bad chunk magic at offset %" PRIu64, offset);
      if (got < kChunkHeaderSize) return cut_short(offset, "chunk");
      ChunkHeader header;
      decode_chunk_header(h, &header);
      std::span<const uint8_t> payload;
      std::string error;
      bool cut = false;
      if (!load_chunk(offset, header, &payload, &error, &cut)) {
        if (cut) return cut_short(offset, "chunk");
        // A damaged index (open() said so in index_error()) only costs
        // seeking: the data chunks before it are read, the trace ends after it.
        if (header.is_index() && status.state != ReadState::kIoError &&
            check_chunk_header(header, offset).empty()) {
          pos = offset + kChunkHeaderSize + header.stored_size;
          continue;
        }
        if (status.state == ReadState::kIoError) return false;
        status.state = ReadState::kCorrupt;
        status.offset = offset;
        status.message = error;
        return false;
      }
      pos = offset + kChunkHeaderSize + header.stored_size;
      if (header.is_index()) continue;  // read through open(), not a data chunk
      status.chunks++;
      status.payload_bytes += payload.size();
      chunk->offset = offset;
      chunk->record_count = header.record_count;
      chunk->payload = payload;
      return true;
    }
    return false;
  }
};

ChunkReader::ChunkReader() : impl_(std::make_unique<Impl>()) {}
ChunkReader::~ChunkReader() = default;

bool ChunkReader::open(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    impl_ = std::make_unique<Impl>();
    return impl_->set(ReadState::kIoError, 0, "cannot open %s: %s", path.c_str(), strerror(errno));
  }
  return open_fd(fd);
}

bool ChunkReader::open_memory(std::span<const uint8_t> data) {
  impl_ = std::make_unique<Impl>();
  impl_->source = Impl::Source::kMemory;
  impl_->memory = data;
  impl_->size = data.size();
  return impl_->open_header();
}

bool ChunkReader::open_fd(int fd) {
  impl_ = std::make_unique<Impl>();
  impl_->fd = fd;
  struct stat st {};
  if (fstat(fd, &st) != 0)
    return impl_->set(ReadState::kIoError, 0, "cannot read the trace: %s", strerror(errno));
  if (S_ISREG(st.st_mode)) {
    impl_->source = Impl::Source::kFile;
    impl_->size = static_cast<uint64_t>(st.st_size);
  } else {
    impl_->source = Impl::Source::kStream;
  }
  return impl_->open_header();
}

bool ChunkReader::next(ChunkView* chunk) { return impl_->next(chunk); }

const ReadStatus& ChunkReader::status() const { return impl_->status; }

const Index* ChunkReader::index() const { return impl_->has_index ? &impl_->index : nullptr; }

const std::string& ChunkReader::index_error() const { return impl_->index_error; }

bool ChunkReader::seek(uint64_t offset) {
  Impl& d = *impl_;
  if (d.source != Impl::Source::kFile && d.source != Impl::Source::kMemory) return false;
  if (d.source == Impl::Source::kFile && offset > d.size) {
    // A file still being written (gltrace view --attach) is longer than at open.
    struct stat st {};
    if (fstat(d.fd, &st) == 0) d.size = static_cast<uint64_t>(st.st_size);
  }
  if (d.pos == 0 || offset < kFileHeaderSize || offset > d.size) return false;  // not open
  if (d.status.state == ReadState::kIoError) return false;
  d.pos = offset;
  d.status.state = ReadState::kReading;
  d.status.message.clear();
  d.status.offset = offset;
  d.status.closed_cleanly = false;
  return true;
}

bool read_trace(ChunkReader& reader, Consumer& consumer, ReadStatus* status) {
  RecordDecoder decoder;
  ChunkView chunk;
  while (!consumer.stop_requested() && reader.next(&chunk)) {
    consumer.on_chunk(chunk.offset, chunk.record_count);
    if (!decoder.decode_chunk(chunk.payload, consumer)) {
      if (status != nullptr) {
        *status = reader.status();
        status->state = ReadState::kCorrupt;
        status->offset = chunk.offset;
        char where[96];
        snprintf(where, sizeof where, "chunk at offset %" PRIu64 ", byte %zu: ", chunk.offset,
                 decoder.error_offset());
        status->message = where + decoder.error();
      }
      return false;
    }
  }
  if (status != nullptr) *status = reader.status();
  return consumer.stop_requested() || reader.status().ok();
}

namespace {

// With decode_ahead, the second thread reads, decompresses and also decodes
// each chunk (into its slot's batch): that splits the work about evenly
// between the two. Without, it reads and decompresses only, and this thread
// decodes straight into the consumer: no batch to fill and replay.
bool read_ahead(ChunkReader& reader, Consumer& consumer, ReadStatus* status, bool decode_ahead) {
  struct Slot {
    std::vector<uint8_t> payload;
    uint64_t offset = 0;
    uint32_t record_count = 0;
    RecordBatch batch;
    bool decoded = false;  // false: the batch holds the records before a decoding error
    std::string error;
    size_t error_offset = 0;
  };
  constexpr size_t kSlots = 4;
  Slot slots[kSlots];
  for (Slot& slot : slots) slot.batch.set_destination(&consumer);
  std::mutex mutex;
  std::condition_variable changed;
  size_t produced = 0, consumed = 0;
  bool done = false, stop = false;
  std::thread prefetch([&] {
    RecordDecoder decoder;
    ChunkView chunk;
    for (;;) {
      {
        std::unique_lock<std::mutex> lock(mutex);
        changed.wait(lock, [&] { return stop || produced - consumed < kSlots; });
        if (stop) break;
      }
      if (!reader.next(&chunk)) break;
      Slot& slot = slots[produced % kSlots];  // not in use: consumed lags by < kSlots
      slot.payload.assign(chunk.payload.begin(), chunk.payload.end());
      slot.offset = chunk.offset;
      slot.record_count = chunk.record_count;
      slot.batch.clear();
      slot.decoded = !decode_ahead || decoder.decode_chunk(slot.payload, slot.batch);
      if (!slot.decoded) {
        slot.error = decoder.error();
        slot.error_offset = decoder.error_offset();
      }
      std::lock_guard<std::mutex> lock(mutex);
      ++produced;
      changed.notify_all();
    }
    std::lock_guard<std::mutex> lock(mutex);
    done = true;
    changed.notify_all();
  });
  RecordDecoder decoder;
  bool ok = true;
  for (;;) {
    {
      std::unique_lock<std::mutex> lock(mutex);
      changed.wait(lock, [&] { return done || produced > consumed; });
      if (produced == consumed) break;  // done, and nothing left
    }
    Slot& slot = slots[consumed % kSlots];
    consumer.on_chunk(slot.offset, slot.record_count);
    // Not decoded ahead, or too big to keep decoded: decoded here.
    if (!decode_ahead || slot.batch.overflowed()) {
      if (!decoder.decode_chunk(slot.payload, consumer)) {
        ok = false;
        slot.error = decoder.error();
        slot.error_offset = decoder.error_offset();
      }
    } else {
      slot.batch.replay(consumer);
      // Decoding straight into the consumer would not have reached the error
      // when the consumer stopped first.
      ok = slot.decoded || consumer.stop_requested();
    }
    if (!ok && status != nullptr) {
      char where[96];
      snprintf(where, sizeof where, "chunk at offset %" PRIu64 ", byte %zu: ", slot.offset,
               slot.error_offset);
      status->message = where + slot.error;
      status->offset = slot.offset;
    }
    std::lock_guard<std::mutex> lock(mutex);
    ++consumed;
    if (!ok || consumer.stop_requested()) stop = true;
    changed.notify_all();
    if (stop) break;
  }
  prefetch.join();
  if (!ok) {
    if (status != nullptr) {
      std::string message = status->message;
      uint64_t offset = status->offset;
      *status = reader.status();
      status->state = ReadState::kCorrupt;
      status->message = message;
      status->offset = offset;
    }
    return false;
  }
  if (status != nullptr) *status = reader.status();
  return consumer.stop_requested() || reader.status().ok();
}

}  // namespace

bool read_trace_prefetched(ChunkReader& reader, Consumer& consumer, ReadStatus* status) {
  return read_ahead(reader, consumer, status, true);
}

bool read_trace_read_ahead(ChunkReader& reader, Consumer& consumer, ReadStatus* status) {
  return read_ahead(reader, consumer, status, false);
}

bool read_trace_file(const std::string& path, Consumer& consumer, std::string* error,
                     std::string* warning) {
  ChunkReader reader;
  ReadStatus status;
  if (!reader.open(path)) {
    *error = path + ": " + reader.status().message;
    return false;
  }
  if (!read_trace(reader, consumer, &status)) {
    *error = path + ": " + status.message;
    return false;
  }
  if (warning != nullptr) *warning = status.message;
  return true;
}

}  // namespace gltrace::format

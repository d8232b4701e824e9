#include "tokens.hpp"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <spdlog/spdlog.h>
#include <sys/stat.h>

#include <algorithm>
#include <array>
#include <fstream>
#include <set>
#include <sstream>

#include "log/log.hpp"

namespace linkage::server::access {
namespace {

constexpr std::string_view kHashPrefix = "sha256:";

std::string hex(const unsigned char* bytes, std::size_t n) {
  static constexpr char digits[] = "0123456789abcdef";
  std::string out;
  out.reserve(2 * n);
  for (std::size_t i = 0; i < n; ++i) {
    out += digits[bytes[i] >> 4];
    out += digits[bytes[i] & 15];
  }
  return out;
}

bool is_name(std::string_view s) {
  return !s.empty() && s.size() <= 64 && std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' ||
           c == '.';
  });
}

bool is_hex64(std::string_view s) {
  return s.size() == 64 &&
         std::all_of(s.begin(), s.end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

std::vector<std::string> split(std::string_view text, char sep) {
  std::vector<std::string> parts;
  std::string part;
  std::stringstream in{std::string(text)};
  while (std::getline(in, part, sep)) parts.push_back(part);
  return parts;
}

// The file's modification time and size: what "the file changed" means.
std::string file_stamp(const std::string& path) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) return "";
  return std::to_string(st.st_mtim.tv_sec) + "." + std::to_string(st.st_mtim.tv_nsec) + "/" +
         std::to_string(st.st_size) + "/" + std::to_string(st.st_ino);
}

Result<std::shared_ptr<const TokenTable>> read_table(const std::string& path) {
  std::ifstream in(path);
  if (!in) return Error{ErrorCode::not_found, path + ": cannot read the token file"};
  std::stringstream text;
  text << in.rdbuf();
  Result<TokenTable> table = TokenTable::parse(text.str(), path);
  if (!table) return table.error();
  return std::make_shared<const TokenTable>(table.value());
}

}  // namespace

bool TokenEntry::allows_world(std::string_view world) const {
  return worlds.empty() || std::find(worlds.begin(), worlds.end(), world) != worlds.end();
}

std::string sha256_hex(std::string_view text) {
  std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
  unsigned int size = 0;
  EVP_Digest(text.data(), text.size(), digest.data(), &size, EVP_sha256(), nullptr);
  return hex(digest.data(), size);
}

std::string new_token() {
  std::array<unsigned char, 32> bytes{};
  if (RAND_bytes(bytes.data(), static_cast<int>(bytes.size())) != 1) return "";
  return "lk_" + hex(bytes.data(), bytes.size());
}

std::string token_line(const TokenEntry& entry) {
  std::string worlds;
  for (const std::string& w : entry.worlds) worlds += (worlds.empty() ? "" : ",") + w;
  return entry.name + " " + std::string(role_name(entry.role)) + " " + (worlds.empty() ? "*" : worlds) + " " +
         std::string(kHashPrefix) + entry.sha256;
}

Result<TokenTable> TokenTable::parse(std::string_view text, const std::string& origin) {
  TokenTable table;
  std::set<std::string> names;
  std::set<std::string> hashes;
  int number = 0;
  for (const std::string& raw : split(text, '\n')) {
    ++number;
    const std::string line = raw.substr(0, raw.find('#'));
    std::stringstream words(line);
    std::vector<std::string> w;
    for (std::string word; words >> word;) w.push_back(word);
    if (w.empty()) continue;
    const std::string at = origin + ":" + std::to_string(number) + ": ";
    if (w.size() != 4)
      return Error{ErrorCode::invalid_argument,
                   at + "want 4 words, 'NAME ROLE WORLDS sha256:HASH' (linkaged token new makes them), got " +
                       std::to_string(w.size())};
    TokenEntry entry;
    entry.name = w[0];
    if (!is_name(entry.name))
      return Error{ErrorCode::invalid_argument,
                   at + "the name '" + w[0] + "' is not 1 to 64 letters, digits, '-', '_' or '.'"};
    if (!names.insert(entry.name).second)
      return Error{ErrorCode::invalid_argument, at + "the name '" + entry.name + "' is on an earlier line too"};
    const std::optional<Role> role = parse_role(w[1]);
    if (!role)
      return Error{ErrorCode::invalid_argument, at + "the role '" + w[1] + "' is not viewer, editor or admin"};
    entry.role = *role;
    if (w[2] != "*") {
      for (const std::string& world : split(w[2], ','))
        if (!is_name(world))
          return Error{ErrorCode::invalid_argument,
                       at + "worlds: '" + world + "' is not a world name (write '*' for every world)"};
      entry.worlds = split(w[2], ',');
    }
    if (!w[3].starts_with(kHashPrefix) || !is_hex64(w[3].substr(kHashPrefix.size())))
      return Error{ErrorCode::invalid_argument,
                   at + "the hash is not 'sha256:' and 64 lowercase hex digits (is a token there instead of its "
                        "hash? `linkaged token hash` prints a token's)"};
    entry.sha256 = w[3].substr(kHashPrefix.size());
    if (!hashes.insert(entry.sha256).second)
      return Error{ErrorCode::invalid_argument, at + "the same token as an earlier line"};
    table.entries_.push_back(std::move(entry));
  }
  return table;
}

const TokenEntry* TokenTable::find(std::string_view token) const {
  const std::string hash = sha256_hex(token);
  // Every entry is compared, in constant time each, so that neither the
  // answer's time nor its path says which hashes are near.
  const TokenEntry* found = nullptr;
  for (const TokenEntry& e : entries_)
    if (CRYPTO_memcmp(e.sha256.data(), hash.data(), hash.size()) == 0) found = &e;
  return found;
}

TokenStore::TokenStore(std::string path) : path_(std::move(path)) {}

Result<std::shared_ptr<TokenStore>> TokenStore::open(const std::string& path) {
  std::shared_ptr<TokenStore> store(new TokenStore(path));
  store->stamp_ = file_stamp(path);
  Result<std::shared_ptr<const TokenTable>> table = read_table(path);
  if (!table) return table.error();
  store->table_ = table.value();
  store->watcher_ = std::thread([s = store.get()] { s->watch(); });
  return store;
}

TokenStore::~TokenStore() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  stop_.notify_all();
  if (watcher_.joinable()) watcher_.join();
}

std::shared_ptr<const TokenTable> TokenStore::table() const {
  std::lock_guard lock(mutex_);
  return table_;
}

bool TokenStore::reload() {
  const std::string stamp = file_stamp(path_);
  Result<std::shared_ptr<const TokenTable>> table = read_table(path_);
  std::lock_guard lock(mutex_);
  stamp_ = stamp;
  if (!table) {
    log::event(spdlog::level::err, "tokens.refused", "",
               fmt::format("tokens: {}; the {} token{} read before stay in force", table.error().message,
                           table_->size(), table_->size() == 1 ? "" : "s"),
               {{"path", path_}, {"tokens", table_->size()}});
    return false;
  }
  table_ = table.value();
  log::event(spdlog::level::info, "tokens.read", "",
             fmt::format("tokens: read {} token{} from {}", table_->size(), table_->size() == 1 ? "" : "s", path_),
             {{"path", path_}, {"tokens", table_->size()}});
  return true;
}

void TokenStore::watch() {
  std::unique_lock lock(mutex_);
  while (!stop_.wait_for(lock, std::chrono::seconds(1), [this] { return stopping_; })) {
    if (file_stamp(path_) == stamp_) continue;
    lock.unlock();
    reload();
    lock.lock();
  }
}

}  // namespace linkage::server::access

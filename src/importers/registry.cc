#include "importers/registry.h"

#include "base/tar_reader.h"
#include "base/text.h"
#include "model/time_base.h"

namespace kraken {

Profile& ProfileSink::NewProfile(const ImportInput& input, std::string_view format) {
  AddProfile(input, format, Profile());
  return profiles_.back();
}

void ProfileSink::AddProfile(const ImportInput& input, std::string_view format, Profile profile) {
  profile.metadata.source = input.display_name;
  profile.metadata.format = std::string(format);
  profiles_.push_back(std::move(profile));
}

void ImporterRegistry::Register(std::unique_ptr<Importer> importer) {
  importers_.push_back(std::move(importer));
}

const Importer* ImporterRegistry::FindByName(std::string_view name) const {
  for (const auto& importer : importers_)
    if (importer->descriptor().name == name) return importer.get();
  return nullptr;
}

const Importer* ImporterRegistry::Sniff(std::string_view head) const {
  const Importer* maybe = nullptr;
  for (const auto& importer : importers_) {
    SniffResult result = importer->Sniff(head);
    if (result == SniffResult::kYes) return importer.get();
    if (result == SniffResult::kMaybe && maybe == nullptr) maybe = importer.get();
  }
  return maybe;
}

const ImporterRegistry& BuiltinImporters() {
  static const ImporterRegistry* registry = [] {
    auto* r = new ImporterRegistry();
    RegisterBuiltinImporters(*r);
    return r;
  }();
  return *registry;
}

namespace {

bool LooksBinary(std::string_view head) {
  size_t control = 0;
  for (char c : head) {
    auto u = static_cast<unsigned char>(c);
    if (u == 0) return true;
    if (u < 0x20 && c != '\n' && c != '\r' && c != '\t' && c != '\f') ++control;
  }
  return control > head.size() / 20;
}

std::string KnownFormats(const ImporterRegistry& registry) {
  std::string names;
  for (const auto& importer : registry.importers()) {
    if (!names.empty()) names += ", ";
    names += importer->descriptor().name;
  }
  return names;
}

// Imports one decompressed input; `name` is what error messages call it.
Status ImportOne(const ImporterRegistry& registry, const std::string& name,
                 std::unique_ptr<ByteStream> stream, const ImportOptions& options, ProfileSink& sink) {
  auto head = ReadUpTo(*stream, kSniffBytes);
  if (!head.ok()) return head.status().WithContext(name);
  if (head->empty()) return InvalidInput(name + ": file is empty");
  const Importer* importer = nullptr;
  if (!options.forced_format.empty()) {
    importer = registry.FindByName(options.forced_format);
    if (importer == nullptr) {
      return InvalidInput("unknown format '" + options.forced_format + "' (known: " + KnownFormats(registry) +
                          ")");
    }
  } else {
    importer = registry.Sniff(*head);
    if (importer == nullptr) {
      std::string what = LooksBinary(*head) ? "binary data" : "text";
      return InvalidInput(name + ": not a format kraken reads (the content is " + what +
                          " that matches none of: " + KnownFormats(registry) + ")");
    }
  }
  ImportInput input;
  input.display_name = name;
  input.head = *head;
  input.stream = MakePrefixedStream(*head, std::move(stream));
  input.progress = options.progress;
  size_t before = sink.profiles().size();
  Status status = importer->Import(input, sink);
  if (!status.ok()) return status.WithContext(name);
  // One clock per profile: an importer that could not place every sample on one base
  // fails the input rather than store an axis that spans 56 years.
  for (size_t i = before; i < sink.profiles().size(); ++i) {
    Result<TimeBase> base = ProfileTimeBase(sink.profiles()[i]);
    if (!base.ok()) return base.status().WithContext(name);
  }
  return Status::Ok();
}

Result<std::vector<Profile>> ImportStream(const ImporterRegistry& registry, const std::string& name,
                                          std::unique_ptr<ByteStream> raw, const ImportOptions& options) {
  auto head = ReadUpTo(*raw, 2);
  if (!head.ok()) return head.status().WithContext(name);
  std::unique_ptr<ByteStream> stream = MakePrefixedStream(*head, std::move(raw));
  if (LooksGzipped(*head)) stream = MakeGzipStream(std::move(stream));

  auto tar_head = ReadUpTo(*stream, 512);
  if (!tar_head.ok()) return tar_head.status().WithContext(name);
  bool is_tar = LooksLikeTar(*tar_head);
  stream = MakePrefixedStream(*tar_head, std::move(stream));

  ProfileSink sink;
  if (!is_tar) {
    KRAKEN_RETURN_IF_ERROR(ImportOne(registry, name, std::move(stream), options, sink));
    return std::move(sink.profiles());
  }
  TarReader tar(std::move(stream));
  TarReader::Member member;
  size_t skipped = 0;
  while (true) {
    auto more = tar.Next(&member);
    if (!more.ok()) return more.status().WithContext(name);
    if (!*more) break;
    std::string member_name = name + ":" + member.name;
    if (member.size_bytes == 0) continue;
    // Inside an archive, members in no known format (READMEs, logs) are skipped and
    // counted; a member in a known format that fails to import fails the whole input.
    auto member_stream = tar.OpenMember();
    auto member_head = ReadUpTo(*member_stream, kSniffBytes);
    if (!member_head.ok()) return member_head.status().WithContext(member_name);
    auto prefixed = MakePrefixedStream(*member_head, std::move(member_stream));
    if (LooksGzipped(*member_head)) prefixed = MakeGzipStream(std::move(prefixed));
    if (options.forced_format.empty() && !LooksGzipped(*member_head) && registry.Sniff(*member_head) == nullptr) {
      ++skipped;
      continue;
    }
    KRAKEN_RETURN_IF_ERROR(ImportOne(registry, member_name, std::move(prefixed), options, sink));
  }
  if (sink.profiles().empty()) {
    return InvalidInput(name + ": tar archive holds no file in a format kraken reads (" +
                        std::to_string(skipped) + " members skipped)");
  }
  if (skipped > 0)
    for (auto& profile : sink.profiles()) profile.import_counters["archive_members_skipped"] = skipped;
  return std::move(sink.profiles());
}

}  // namespace

Result<std::vector<Profile>> ImportFile(const ImporterRegistry& registry, const std::string& path,
                                        const ImportOptions& options) {
  auto file = OpenFileStream(path);
  if (!file.ok()) return file.status().WithContext(path);
  return ImportStream(registry, path, std::move(file).value(), options);
}

Result<std::vector<Profile>> ImportBuffer(const ImporterRegistry& registry, const std::string& name,
                                          std::string data, const ImportOptions& options) {
  return ImportStream(registry, name, MakeMemoryStream(std::move(data)), options);
}

}  // namespace kraken

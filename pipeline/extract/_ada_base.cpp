/* The slots of _ada_base.h over ada's C++ API (ada.h, from the ada-url wheel, as ada.cpp):
 * ada::parse<ada::url_aggregator>(input, &base) takes a base parsed once, where
 * ada_parse_with_base parses it again for every input (which about doubles the cost of a
 * relative href). The results are the same parse: ada_parse_with_base is that call after
 * parsing its base (the tests compare the two). */
#include <new>
#include <optional>
#include <string_view>

#include "ada.h"
#include "_ada_base.h"

struct rd_url {
    std::optional<ada::url_aggregator> value;
};

extern "C" rd_url *rd_url_new(void) {
    return new (std::nothrow) rd_url{};
}

extern "C" void rd_url_free(rd_url *url) {
    delete url;
}

extern "C" int rd_url_parse(rd_url *url, const char *input, size_t length, const rd_url *base) {
    try {
        url->value.reset();
        if (base != nullptr && !base->value) return 0;
        auto parsed = ada::parse<ada::url_aggregator>(std::string_view(input, length),
                                                      base != nullptr ? &*base->value : nullptr);
        if (!parsed) return 0;
        url->value.emplace(std::move(*parsed));
        return 1;
    } catch (...) {  // (std::bad_alloc: ada reports its own failures as values)
        url->value.reset();
        return -1;
    }
}

extern "C" const char *rd_url_href(const rd_url *url, size_t *length) {
    std::string_view href = url->value->get_href();
    *length = href.size();
    return href.data();
}

extern "C" const char *rd_url_hostname(const rd_url *url, size_t *length) {
    std::string_view host = url->value->get_hostname();
    *length = host.size();
    return host.data();
}

extern "C" int rd_url_special(const rd_url *url) {
    return url->value->is_special();
}

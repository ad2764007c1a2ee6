import pytest

from clusterviz.apimachinery.names import (
    is_c_identifier,
    is_dns1035_label,
    is_dns1123_label,
    is_dns1123_subdomain,
    is_qualified_name,
    is_valid_label_value,
    regex_error,
)

SUBDOMAIN_MSG = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', "
    "and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation "
    "is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
)
LABEL_MSG = (
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start "
    "and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is "
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
)
NAME_PART_MSG = (
    "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
    "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
    "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
)
LABEL_VALUE_MSG = (
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must "
    "start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used "
    "for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
)


@pytest.mark.parametrize("name", ["a", "web", "example.com", "my-app.v2", "0abc", "a" * 253, "a.b.c.d"])
def test_subdomain_accepts_lowercase_dotted_names(name):
    assert is_dns1123_subdomain(name) == []


@pytest.mark.parametrize("name", ["Foo_bar", "UPPER", "-web", "web-", "a..b", ".a", "a.", "", "we b", "ü"])
def test_subdomain_rejects_bad_characters_with_upstream_message(name):
    assert is_dns1123_subdomain(name) == [SUBDOMAIN_MSG]


def test_subdomain_over_253_characters_reports_only_length():
    assert is_dns1123_subdomain("a" * 254) == ["must be no more than 253 characters"]


def test_subdomain_too_long_and_malformed_reports_both_problems():
    assert is_dns1123_subdomain("A" * 254) == ["must be no more than 253 characters", SUBDOMAIN_MSG]


def test_subdomain_rejects_trailing_newline_like_go_regexp():
    assert is_dns1123_subdomain("web\n") == [SUBDOMAIN_MSG]


def test_subdomain_length_counts_utf8_bytes():
    # 127 two-byte characters are 254 bytes, over the limit although only 127 characters long.
    assert "must be no more than 253 characters" in is_dns1123_subdomain("é" * 127)


@pytest.mark.parametrize("name", ["default", "kube-system", "a", "1", "a" * 63])
def test_label_accepts_namespace_style_names(name):
    assert is_dns1123_label(name) == []


def test_label_with_dots_says_dots_are_the_problem():
    assert is_dns1123_label("my.namespace") == ["must not contain dots"]


def test_label_with_uppercase_quotes_label_regex_and_examples():
    assert is_dns1123_label("Default") == [LABEL_MSG]


def test_label_over_63_characters_is_too_long():
    assert is_dns1123_label("a" * 64) == ["must be no more than 63 characters"]


def test_dns1035_label_must_start_with_a_letter():
    assert is_dns1035_label("my-service") == []
    assert is_dns1035_label("1service") == [
        "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic "
        "character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for "
        "validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"
    ]


@pytest.mark.parametrize(
    "key",
    ["app", "App_Name", "app.kubernetes.io/name", "example.com/MyName", "node-role.kubernetes.io/control-plane", "a"],
)
def test_qualified_name_accepts_keys_with_optional_prefix(key):
    assert is_qualified_name(key) == []


def test_qualified_name_with_empty_prefix_reports_prefix_part():
    assert is_qualified_name("/app") == ["prefix part must be non-empty"]


def test_qualified_name_with_uppercase_prefix_reports_prefixed_subdomain_message():
    assert is_qualified_name("Example.com/app") == ["prefix part " + SUBDOMAIN_MSG]


def test_qualified_name_with_empty_name_reports_empty_and_regex():
    assert is_qualified_name("example.com/") == ["name part must be non-empty", NAME_PART_MSG]


def test_qualified_name_with_underscore_edge_reports_name_part_regex():
    assert is_qualified_name("_app") == [NAME_PART_MSG]


def test_qualified_name_name_part_limited_to_63_characters():
    assert is_qualified_name("x/" + "a" * 63) == []
    assert is_qualified_name("x/" + "a" * 64) == ["name part must be no more than 63 characters"]


def test_qualified_name_prefix_may_be_up_to_253_characters():
    assert is_qualified_name("a" * 253 + "/b") == []
    assert is_qualified_name("a" * 254 + "/b") == ["prefix part must be no more than 253 characters"]


def test_qualified_name_with_two_slashes_gives_single_shape_message():
    assert is_qualified_name("a/b/c") == [
        "a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with "
        "an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
        "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' "
        "(e.g. 'example.com/MyName')"
    ]


@pytest.mark.parametrize("value", ["", "myapp", "MyValue", "my_value", "12345", "v1.2.3", "a" * 63])
def test_label_value_accepts_empty_and_alphanumeric_values(value):
    assert is_valid_label_value(value) == []


@pytest.mark.parametrize("value", ["-x", "x-", "a b", "a/b", "a=b", "_"])
def test_label_value_rejects_bad_values_with_upstream_message(value):
    assert is_valid_label_value(value) == [LABEL_VALUE_MSG]


def test_label_value_over_63_characters_is_too_long():
    assert is_valid_label_value("a" * 64) == ["must be no more than 63 characters"]


def test_c_identifier_rejects_leading_digit():
    assert is_c_identifier("MY_VAR") == []
    assert is_c_identifier("_x1") == []
    assert is_c_identifier("1X") == [
        "a valid C identifier must start with alphabetic character or '_', followed by a string of alphanumeric "
        "characters or '_' (e.g. 'my_name',  or 'MY_NAME',  or 'MyName', regex used for validation is "
        "'[A-Za-z_][A-Za-z0-9_]*')"
    ]


def test_regex_error_without_examples_omits_eg_clause():
    assert regex_error("bad", "x+") == "bad (regex used for validation is 'x+')"

"""The scripted sessions ``bench/agent_cost.py`` replays on pinned sdists.

Each is a task, the definitions it needs, and the calls an agent typically makes to get
there (a search, whole-file reads, re-reads, overlapping ranges, a symbol read, a read of a
wrong file), written like the standard-library sessions of ``bench/replay_scripts.py``. A
step's "module" is the file's path inside the unpacked sdist. The jinja2 sessions, and
later the click ones, then the requests ones, were written for a repository the bench had
not used before, before any arm ran on them (each set the held-out check of a change tuned
on the others; the requests set is the held-out check of the ``+ hooks`` arms). The
marshmallow set was written the same way, committed before any arm ran on it: the held-out
check of the hooks that show a searched definition's body with the search; its first run
is the one reported as held out.
"""

from __future__ import annotations

from replay_scripts import ReadAround, ReadFile, ReadSymbol, Search, Session

ATTRS = "24.2.0"
JINJA2 = "3.1.4"
CLICK = "8.1.7"
REQUESTS = "2.32.3"
MARSHMALLOW = "3.23.1"


def _s(name: str, task: str, needs: list[tuple[str, str]], *steps: object) -> Session:
    return Session(name, task, tuple(needs), tuple(steps))  # type: ignore[arg-type]


MAKE = "src/attr/_make.py"
FUNCS = "src/attr/_funcs.py"
NEXT = "src/attr/_next_gen.py"
VALIDATORS = "src/attr/validators.py"
CONVERTERS = "src/attr/converters.py"
FILTERS = "src/attr/filters.py"
SETTERS = "src/attr/setters.py"
CMP = "src/attr/_cmp.py"

ATTRS_SESSIONS: tuple[Session, ...] = (
    _s("attrs-evolve", "How does attrs.evolve build the new instance?",
       [(FUNCS, "evolve")],
       Search("def evolve"), ReadFile(FUNCS), ReadAround(FUNCS, "evolve", 5, 5),
       ReadFile(MAKE, 0, 300), ReadFile(FUNCS), ReadAround(FUNCS, "assoc")),
    _s("attrs-define", "What defaults does attrs.define pick?",
       [(NEXT, "define")],
       Search("def define"), ReadFile(NEXT), ReadAround(NEXT, "define", 0, 20),
       ReadFile(MAKE, 1170, 250), ReadAround(NEXT, "field"), ReadFile(NEXT, 0, 120)),
    _s("attrs-asdict", "How does asdict recurse into collections?",
       [(FUNCS, "asdict"), (FUNCS, "_asdict_anything")],
       Search("def asdict"), ReadFile(FUNCS), ReadAround(FUNCS, "_asdict_anything", 5, 5),
       ReadFile(NEXT, 590, 40), ReadAround(FUNCS, "asdict", 0, 10), ReadFile(FILTERS)),
    _s("attrs-instance-of", "What does validators.instance_of raise?",
       [(VALIDATORS, "_InstanceOfValidator"), (VALIDATORS, "instance_of")],
       Search("class _InstanceOfValidator"), ReadFile(VALIDATORS),
       ReadAround(VALIDATORS, "_InstanceOfValidator", 5, 5), ReadFile("src/attr/exceptions.py"),
       ReadFile(VALIDATORS), ReadAround(VALIDATORS, "instance_of")),
    _s("attrs-init-script", "How is the generated __init__ written?",
       [(MAKE, "_attrs_to_init_script"), (MAKE, "_make_init")],
       Search("def _attrs_to_init_script"), ReadFile(MAKE),
       ReadAround(MAKE, "_attrs_to_init_script", 0, 10), ReadAround(MAKE, "_make_init", 5, 5),
       ReadFile(MAKE, 1850, 150), ReadFile(CONVERTERS)),
    _s("attrs-converters", "How does default_if_none choose a value?",
       [(CONVERTERS, "default_if_none"), (CONVERTERS, "optional")],
       Search("def default_if_none"), ReadFile(CONVERTERS),
       ReadAround(CONVERTERS, "default_if_none", 0, 10), ReadFile(SETTERS), ReadFile(CONVERTERS),
       ReadAround(CONVERTERS, "optional", 2, 2)),
    _s("attrs-fields", "What does attrs.fields return for a non-attrs class?",
       [(MAKE, "fields"), (MAKE, "fields_dict")],
       Search("def fields", "symbol"), ReadSymbol(MAKE, "fields"), ReadSymbol(MAKE, "fields_dict"),
       ReadFile(MAKE, 1690, 120), ReadFile(FUNCS, 320, 40), ReadSymbol(MAKE, "fields")),
    _s("attrs-cmp-using", "What does cmp_using generate?",
       [(CMP, "cmp_using")],
       Search("def cmp_using"), ReadFile(CMP), ReadAround(CMP, "cmp_using", 0, 20),
       ReadFile(MAKE, 1500, 130), ReadFile(CMP), ReadAround(CMP, "_make_operator", 5, 5)),
)



ENV = "src/jinja2/environment.py"
FILTERS_J = "src/jinja2/filters.py"
LOADERS = "src/jinja2/loaders.py"
UTILS = "src/jinja2/utils.py"
SANDBOX = "src/jinja2/sandbox.py"
RUNTIME = "src/jinja2/runtime.py"
LEXER = "src/jinja2/lexer.py"
PARSER = "src/jinja2/parser.py"
COMPILER = "src/jinja2/compiler.py"
EXCEPTIONS = "src/jinja2/exceptions.py"

JINJA2_SESSIONS: tuple[Session, ...] = (
    _s("jinja2-get-template", "How does Environment.get_template find and cache a template?",
       [(ENV, "Environment.get_template"), (ENV, "Environment._load_template")],
       Search("def get_template"), ReadFile(ENV), ReadAround(ENV, "Environment._load_template", 0, 5),
       ReadFile(LOADERS, 0, 120), ReadAround(ENV, "Environment.get_template", 2, 2), ReadFile(ENV)),
    _s("jinja2-truncate", "What does the truncate filter do with leeway?",
       [(FILTERS_J, "do_truncate")],
       Search("def do_truncate"), ReadFile(FILTERS_J), ReadAround(FILTERS_J, "do_truncate", 0, 10),
       ReadFile(UTILS, 0, 200), ReadFile(FILTERS_J), ReadAround(FILTERS_J, "do_wordwrap")),
    _s("jinja2-filesystem-loader", "How does FileSystemLoader.get_source tell a template is up to date?",
       [(LOADERS, "FileSystemLoader.get_source"), (LOADERS, "split_template_path")],
       Search("class FileSystemLoader"), ReadFile(LOADERS),
       ReadAround(LOADERS, "split_template_path", 2, 2), ReadFile(ENV, 940, 80),
       ReadAround(LOADERS, "FileSystemLoader.get_source", 0, 5), ReadFile(UTILS, 150, 20)),
    _s("jinja2-sandbox-attributes", "Which attributes does the sandbox refuse?",
       [(SANDBOX, "is_internal_attribute"), (SANDBOX, "SandboxedEnvironment.is_safe_attribute")],
       Search("def is_internal_attribute"), ReadFile(SANDBOX),
       ReadAround(SANDBOX, "is_internal_attribute", 5, 5), ReadFile(RUNTIME, 780, 120),
       ReadSymbol(SANDBOX, "SandboxedEnvironment.is_safe_attribute"), ReadFile(SANDBOX)),
    _s("jinja2-lru-cache", "How does jinja2's LRUCache evict?",
       [(UTILS, "LRUCache")],
       Search("class LRUCache"), ReadFile(UTILS), ReadAround(UTILS, "LRUCache"),
       ReadFile(ENV, 80, 30), ReadAround(UTILS, "LRUCache", 2, 2)),
    _s("jinja2-strict-undefined", "What does StrictUndefined raise on?",
       [(RUNTIME, "StrictUndefined"), (RUNTIME, "Undefined")],
       Search("class StrictUndefined"), ReadFile(RUNTIME), ReadAround(RUNTIME, "StrictUndefined", 2, 2),
       ReadFile(EXCEPTIONS), ReadAround(RUNTIME, "Undefined")),
    _s("jinja2-lexer-wrap", "How does Lexer.wrap turn raw tokens into Token objects?",
       [(LEXER, "Lexer.wrap"), (LEXER, "Token")],
       Search("def wrap"), ReadFile(LEXER), ReadAround(LEXER, "Lexer.wrap", 0, 5),
       ReadFile(PARSER, 0, 80), ReadSymbol(LEXER, "Token"), ReadFile(LEXER, 600, 80)),
    _s("jinja2-context-resolve", "How does a template Context resolve a name?",
       [(RUNTIME, "Context.resolve_or_missing"), (RUNTIME, "Context.resolve")],
       Search("def resolve_or_missing"), ReadFile(RUNTIME),
       ReadAround(RUNTIME, "Context.resolve_or_missing", 3, 3), ReadFile(COMPILER, 160, 90),
       ReadAround(RUNTIME, "Context.resolve"), ReadFile(RUNTIME)),
    _s("jinja2-select-autoescape", "What does select_autoescape return?",
       [(UTILS, "select_autoescape")],
       Search("def select_autoescape"), ReadFile(UTILS), ReadAround(UTILS, "select_autoescape", 0, 5),
       ReadFile(ENV, 290, 80), ReadFile(UTILS)),
    _s("jinja2-default-filter", "When does the default filter use its default?",
       [(FILTERS_J, "do_default")],
       Search("def do_default"), ReadSymbol(FILTERS_J, "do_default"), ReadFile(FILTERS_J, 520, 60),
       ReadFile(RUNTIME, 794, 60), ReadSymbol(FILTERS_J, "do_default")),
)


C_CORE = "src/click/core.py"
C_TYPES = "src/click/types.py"
C_UTILS = "src/click/utils.py"
C_TERMUI = "src/click/termui.py"
C_TERMUI_IMPL = "src/click/_termui_impl.py"
C_PARSER = "src/click/parser.py"
C_EXCEPTIONS = "src/click/exceptions.py"
C_FORMATTING = "src/click/formatting.py"
C_TESTING = "src/click/testing.py"
C_DECORATORS = "src/click/decorators.py"
C_GLOBALS = "src/click/globals.py"
C_COMPAT = "src/click/_compat.py"
C_TEXTWRAP = "src/click/_textwrap.py"
C_SHELL = "src/click/shell_completion.py"

CLICK_SESSIONS: tuple[Session, ...] = (
    _s("click-echo", "How does click.echo decide whether to strip colours?",
       [(C_UTILS, "echo")],
       Search("def echo"), ReadFile(C_UTILS), ReadAround(C_UTILS, "echo", 0, 5),
       ReadFile(C_COMPAT, 0, 120), ReadFile(C_UTILS), ReadAround(C_UTILS, "make_str")),
    _s("click-choice-convert", "How does Choice.convert match a value case-insensitively?",
       [(C_TYPES, "Choice.convert"), (C_TYPES, "ParamType.fail")],
       Search("def convert"), ReadFile(C_TYPES), ReadAround(C_TYPES, "Choice.convert", 2, 2),
       ReadFile(C_EXCEPTIONS, 80, 50), ReadSymbol(C_TYPES, "ParamType.fail"),
       ReadFile(C_TYPES, 0, 100)),
    _s("click-option-envvar", "How does an Option read its value from an environment variable?",
       [(C_CORE, "Option.resolve_envvar_value"), (C_CORE, "Option.value_from_envvar")],
       Search("def resolve_envvar_value"), ReadFile(C_CORE),
       ReadAround(C_CORE, "Option.value_from_envvar", 0, 5), ReadFile(C_TYPES, 100, 60),
       ReadAround(C_CORE, "Option.resolve_envvar_value", 2, 2), ReadFile(C_GLOBALS)),
    _s("click-prompt", "How does click.prompt ask again after a bad value?",
       [(C_TERMUI, "prompt")],
       Search("def prompt"), ReadFile(C_TERMUI), ReadAround(C_TERMUI, "prompt", 0, 10),
       ReadFile(C_TERMUI_IMPL, 0, 100), ReadAround(C_TERMUI, "_build_prompt"), ReadFile(C_TERMUI)),
    _s("click-runner-invoke", "What does CliRunner.invoke catch, and what does it return?",
       [(C_TESTING, "CliRunner.invoke")],
       Search("def invoke"), ReadFile(C_TESTING), ReadAround(C_TESTING, "CliRunner.invoke", 0, 5),
       ReadFile(C_CORE, 1080, 80), ReadAround(C_TESTING, "CliRunner.isolation"),
       ReadFile(C_EXCEPTIONS, 270, 19)),
    _s("click-wrap-text", "How does wrap_text keep paragraphs apart?",
       [(C_FORMATTING, "wrap_text")],
       Search("def wrap_text"), ReadFile(C_FORMATTING), ReadAround(C_FORMATTING, "wrap_text", 2, 2),
       ReadFile(C_TEXTWRAP), ReadFile(C_FORMATTING, 100, 80)),
    _s("click-split-arg-string", "How does split_arg_string split a command line?",
       [(C_PARSER, "split_arg_string")],
       Search("def split_arg_string"), ReadSymbol(C_PARSER, "split_arg_string"),
       ReadFile(C_SHELL, 490, 60), ReadFile(C_PARSER, 100, 60)),
    _s("click-missing-parameter", "What message does MissingParameter print?",
       [(C_EXCEPTIONS, "MissingParameter.format_message"), (C_EXCEPTIONS, "_join_param_hints")],
       Search("class MissingParameter"), ReadFile(C_EXCEPTIONS),
       ReadAround(C_EXCEPTIONS, "MissingParameter.format_message", 0, 5),
       ReadFile(C_CORE, 2400, 60), ReadAround(C_EXCEPTIONS, "_join_param_hints", 2, 2)),
    _s("click-pass-decorator", "How does make_pass_decorator find the object it passes?",
       [(C_DECORATORS, "make_pass_decorator"), (C_CORE, "Context.find_object")],
       Search("def make_pass_decorator"), ReadFile(C_DECORATORS),
       ReadAround(C_DECORATORS, "make_pass_decorator", 0, 5), ReadFile(C_GLOBALS),
       ReadSymbol(C_CORE, "Context.find_object"), ReadFile(C_DECORATORS, 0, 60)),
    _s("click-progressbar", "What does click.progressbar build?",
       [(C_TERMUI, "progressbar"), (C_TERMUI_IMPL, "ProgressBar.__init__")],
       Search("def progressbar"), ReadFile(C_TERMUI), ReadAround(C_TERMUI, "progressbar", 0, 5),
       ReadFile(C_TERMUI_IMPL, 0, 150), ReadSymbol(C_TERMUI_IMPL, "ProgressBar.__init__")),
)


R_SESSIONS = "src/requests/sessions.py"
R_MODELS = "src/requests/models.py"
R_UTILS = "src/requests/utils.py"
R_ADAPTERS = "src/requests/adapters.py"
R_AUTH = "src/requests/auth.py"
R_COOKIES = "src/requests/cookies.py"
R_API = "src/requests/api.py"
R_STRUCTURES = "src/requests/structures.py"
R_EXCEPTIONS = "src/requests/exceptions.py"

REQUESTS_SESSIONS: tuple[Session, ...] = (
    _s("requests-redirects", "How does a Session follow redirects, and when does it drop auth?",
       [(R_SESSIONS, "SessionRedirectMixin.resolve_redirects"),
        (R_SESSIONS, "SessionRedirectMixin.should_strip_auth")],
       Search("def resolve_redirects"), ReadFile(R_SESSIONS),
       ReadAround(R_SESSIONS, "SessionRedirectMixin.resolve_redirects", 0, 5),
       ReadFile(R_MODELS, 0, 120), ReadAround(R_SESSIONS, "SessionRedirectMixin.should_strip_auth"),
       ReadFile(R_SESSIONS, 280, 80)),
    _s("requests-raise-for-status", "What does Response.raise_for_status put in its message?",
       [(R_MODELS, "Response.raise_for_status")],
       Search("def raise_for_status"), ReadFile(R_MODELS),
       ReadAround(R_MODELS, "Response.raise_for_status", 2, 2), ReadFile(R_EXCEPTIONS),
       ReadFile(R_MODELS, 640, 70)),
    _s("requests-prepare-body", "How does PreparedRequest.prepare_body choose a content type?",
       [(R_MODELS, "PreparedRequest.prepare_body"),
        (R_MODELS, "RequestEncodingMixin._encode_params")],
       Search("def prepare_body"), ReadFile(R_MODELS),
       ReadAround(R_MODELS, "PreparedRequest.prepare_body", 0, 10), ReadFile(R_UTILS, 130, 80),
       ReadSymbol(R_MODELS, "RequestEncodingMixin._encode_params"), ReadFile(R_MODELS)),
    _s("requests-proxies", "When does requests bypass a proxy?",
       [(R_UTILS, "should_bypass_proxies"), (R_UTILS, "select_proxy")],
       Search("def should_bypass_proxies"), ReadFile(R_UTILS),
       ReadAround(R_UTILS, "should_bypass_proxies", 5, 5), ReadFile(R_SESSIONS, 740, 60),
       ReadAround(R_UTILS, "select_proxy"), ReadFile(R_ADAPTERS, 260, 50)),
    _s("requests-digest", "How does HTTPDigestAuth build its header?",
       [(R_AUTH, "HTTPDigestAuth.build_digest_header")],
       Search("def build_digest_header"), ReadFile(R_AUTH),
       ReadAround(R_AUTH, "HTTPDigestAuth.build_digest_header", 0, 5), ReadFile(R_COOKIES, 0, 60),
       ReadFile(R_AUTH), ReadAround(R_AUTH, "HTTPDigestAuth.handle_401", 2, 2)),
    _s("requests-adapter-send", "What does HTTPAdapter.send turn urllib3 errors into?",
       [(R_ADAPTERS, "HTTPAdapter.send")],
       Search("def send"), ReadFile(R_ADAPTERS), ReadAround(R_ADAPTERS, "HTTPAdapter.send", 0, 5),
       ReadFile(R_EXCEPTIONS), ReadFile(R_SESSIONS, 670, 80), ReadFile(R_ADAPTERS, 0, 90)),
    _s("requests-cookie-jar", "How does RequestsCookieJar.set handle a value of None?",
       [(R_COOKIES, "RequestsCookieJar.set"), (R_COOKIES, "remove_cookie_by_name")],
       Search("def remove_cookie_by_name"), ReadFile(R_COOKIES),
       ReadAround(R_COOKIES, "RequestsCookieJar.set", 2, 2), ReadFile(R_STRUCTURES),
       ReadSymbol(R_COOKIES, "remove_cookie_by_name"), ReadFile(R_COOKIES, 440, 80)),
    _s("requests-session-request", "What does Session.request do before it sends?",
       [(R_SESSIONS, "Session.request"), (R_SESSIONS, "Session.prepare_request")],
       Search("def request"), ReadFile(R_API), ReadFile(R_SESSIONS),
       ReadAround(R_SESSIONS, "Session.request", 0, 5), ReadFile(R_MODELS, 230, 90),
       ReadAround(R_SESSIONS, "Session.prepare_request", 2, 2)),
)


M_SCHEMA = "src/marshmallow/schema.py"
M_FIELDS = "src/marshmallow/fields.py"
M_UTILS = "src/marshmallow/utils.py"
M_VALIDATE = "src/marshmallow/validate.py"
M_DECORATORS = "src/marshmallow/decorators.py"
M_ERROR_STORE = "src/marshmallow/error_store.py"
M_EXCEPTIONS = "src/marshmallow/exceptions.py"
M_CLASS_REGISTRY = "src/marshmallow/class_registry.py"

MARSHMALLOW_SESSIONS: tuple[Session, ...] = (
    _s("marshmallow-do-load", "What does Schema._do_load run, and in what order?",
       [(M_SCHEMA, "Schema._do_load"), (M_SCHEMA, "Schema._invoke_load_processors")],
       Search("def _do_load"), ReadFile(M_SCHEMA), ReadAround(M_SCHEMA, "Schema._do_load", 0, 5),
       ReadFile(M_DECORATORS, 120, 90),
       ReadAround(M_SCHEMA, "Schema._invoke_load_processors", 2, 2), ReadFile(M_SCHEMA, 680, 80)),
    _s("marshmallow-nested-schema", "How does fields.Nested find the schema it nests?",
       [(M_FIELDS, "Nested.schema"), (M_CLASS_REGISTRY, "get_class")],
       Search("class Nested"), ReadFile(M_FIELDS), ReadAround(M_FIELDS, "Nested.schema", 0, 5),
       ReadFile(M_CLASS_REGISTRY), ReadAround(M_FIELDS, "Nested._deserialize", 2, 2),
       ReadFile(M_FIELDS, 480, 100)),
    _s("marshmallow-field-deserialize", "What does Field.deserialize do with a missing value?",
       [(M_FIELDS, "Field.deserialize"), (M_FIELDS, "Field._validate_missing")],
       Search("def deserialize"), ReadFile(M_FIELDS), ReadAround(M_FIELDS, "Field.deserialize", 0, 5),
       ReadFile(M_UTILS, 20, 40), ReadSymbol(M_FIELDS, "Field._validate_missing"),
       ReadFile(M_FIELDS, 150, 100)),
    _s("marshmallow-range", "What message does validate.Range give for a value out of range?",
       [(M_VALIDATE, "Range")],
       Search("class Range"), ReadFile(M_VALIDATE), ReadAround(M_VALIDATE, "Range", 2, 2),
       ReadFile(M_EXCEPTIONS), ReadFile(M_VALIDATE), ReadAround(M_VALIDATE, "Length.__call__")),
    _s("marshmallow-datetime", "How does fields.DateTime parse an ISO value?",
       [(M_FIELDS, "DateTime._deserialize"), (M_UTILS, "from_iso_datetime")],
       Search("def from_iso_datetime"), ReadFile(M_UTILS),
       ReadAround(M_UTILS, "from_iso_datetime", 0, 5), ReadFile(M_FIELDS, 1220, 90),
       ReadAround(M_FIELDS, "DateTime._deserialize", 2, 2), ReadFile(M_UTILS)),
    _s("marshmallow-merge-errors", "How are the errors of several fields merged?",
       [(M_ERROR_STORE, "merge_errors"), (M_SCHEMA, "Schema._call_and_store")],
       Search("def merge_errors"), ReadFile(M_ERROR_STORE), ReadFile(M_SCHEMA),
       ReadAround(M_SCHEMA, "Schema._call_and_store", 0, 5), ReadFile(M_EXCEPTIONS),
       ReadSymbol(M_ERROR_STORE, "merge_errors")),
    _s("marshmallow-validates-schema", "How is a validates_schema hook called with pass_many?",
       [(M_SCHEMA, "Schema._invoke_schema_validators"), (M_DECORATORS, "validates_schema")],
       Search("def validates_schema"), ReadFile(M_DECORATORS),
       ReadAround(M_DECORATORS, "validates_schema", 0, 10), ReadFile(M_SCHEMA, 800, 120),
       ReadSymbol(M_SCHEMA, "Schema._invoke_schema_validators"), ReadFile(M_DECORATORS, 200, 33)),
    _s("marshmallow-get-value", "How does utils.get_value follow a dotted key?",
       [(M_UTILS, "get_value"), (M_UTILS, "_get_value_for_key")],
       Search("def get_value"), ReadFile(M_UTILS), ReadAround(M_UTILS, "get_value", 2, 2),
       ReadFile(M_FIELDS, 250, 30), ReadAround(M_UTILS, "_get_value_for_key"),
       ReadFile(M_SCHEMA, 460, 40)),
)

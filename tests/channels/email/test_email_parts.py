"""The email channel's parts on their own: settings (nanobot's names and defaults), the
Authentication-Results checks, reading mail (HTML, quotes, senders, threads), writing answers."""

from __future__ import annotations

from email.message import EmailMessage
from pathlib import Path

import pytest
from pydantic import ValidationError

from desktop.core.channels.email import auth
from desktop.core.channels.email.inbound import read, screen
from desktop.core.channels.email.parse import (
    dedupe_key,
    html_to_text,
    is_auto_submitted,
    parse_bytes,
    reply_part,
    safe_filename,
    sender_address,
    thread_references,
)
from desktop.core.channels.email.smtp import Thread, compose
from desktop.core.config.channels.email import EmailConfig
from desktop.core.config.schema import Config
from desktop.core.config.secret_fields import channel_secret_paths
from tests.typed import present

# nanobot-ai 0.3.5: EmailConfig().model_dump(by_alias=True)
NANOBOT_DEFAULTS = {
    "enabled": False,
    "consentGranted": False,
    "imapHost": "",
    "imapPort": 993,
    "imapUsername": "",
    "imapPassword": "",
    "imapMailbox": "INBOX",
    "imapUseSsl": True,
    "smtpHost": "",
    "smtpPort": 587,
    "smtpUsername": "",
    "smtpPassword": "",
    "smtpUseTls": True,
    "smtpUseSsl": False,
    "fromAddress": "",
    "autoReplyEnabled": True,
    "pollIntervalSeconds": 30,
    "markSeen": True,
    "postAction": None,
    "postActionMoveMailbox": None,
    "postActionExpunge": False,
    "postActionIgnoreSkipped": True,
    "maxBodyChars": 12000,
    "subjectPrefix": "Re: ",
    "allowFrom": [],
    "verifyDkim": True,
    "verifySpf": True,
    "trustedAuthservIds": [],
    "allowedAttachmentTypes": [],
    "maxAttachmentSize": 2000000,
    "maxAttachmentsPerEmail": 5,
}


def _mail(*headers: tuple[str, str], body: str = "hi") -> EmailMessage:
    raw = "".join(f"{k}: {v}\r\n" for k, v in headers) + "\r\n" + body
    return parse_bytes(raw.encode())


# -- settings ------------------------------------------------------------------------------
def test_settings_have_nanobots_names_and_defaults() -> None:
    assert EmailConfig().model_dump(by_alias=True) == NANOBOT_DEFAULTS
    for name, info in EmailConfig.model_fields.items():
        assert info.title and info.description, f"{name} needs a title and a description"


def test_a_nanobot_config_section_loads_unchanged() -> None:
    section = {
        "enabled": True,
        "consentGranted": True,
        "imapHost": "imap.gmail.com",
        "imapUsername": "me@gmail.com",
        "imapPassword": "app-pw",
        "postAction": "move",
        "postActionMoveMailbox": "Done",
        "trustedAuthservIds": ["MX.Google.com."],
        "allowFrom": ["friend@example.org"],
        "someFutureKey": 1,
    }
    email = Config.model_validate({"channels": {"email": section}}).channels.email
    assert isinstance(email, EmailConfig)
    assert (email.imap_host, email.post_action, email.trusted_authserv_ids) == (
        "imap.gmail.com",
        "move",
        ["mx.google.com"],
    )
    assert email.model_dump(by_alias=True)["someFutureKey"] == 1, "unknown keys are kept"
    assert set(channel_secret_paths("email")) == {
        "channels.email.imap_password",
        "channels.email.smtp_password",
    }, "the passwords go to the keyring"
    with pytest.raises(ValidationError):
        EmailConfig(trusted_authserv_ids=["*.google.com"])
    with pytest.raises(ValidationError):
        EmailConfig(post_action="archive")


# -- Authentication-Results ----------------------------------------------------------------
ALICE = "alice@example.org"


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        (
            ["mx.test; spf=pass smtp.mailfrom=alice@example.org; dkim=pass header.d=example.org"],
            (True, True),
        ),
        # relaxed alignment: a subdomain of the From domain
        (
            [
                (
                    "mx.test 1; spf=pass smtp.mailfrom=bounce.mail.example.org; dkim=pass "
                    "header.d=mail.example.org header.s=k1"
                )
            ],
            (True, True),
        ),
        # a quoted local part; DKIM identity from header.i when header.d is missing
        (
            ['mx.test; spf=pass smtp.mailfrom="a b"@example.org; dkim=pass header.i=@example.org'],
            (True, True),
        ),
        (
            ["mx.test; spf=pass smtp.mailfrom=evil.test; dkim=pass header.d=evil.test"],
            (False, False),
        ),
        (
            ["mx.test; spf=softfail smtp.mailfrom=example.org; dkim=fail header.d=example.org"],
            (False, False),
        ),
        # comments are not values
        (["mx.test; spf=pass (smtp.mailfrom=example.org) smtp.mailfrom=evil.test"], (False, False)),
        # a producer we do not trust
        (
            ["evil.test; spf=pass smtp.mailfrom=example.org; dkim=pass header.d=example.org"],
            (False, False),
        ),
        # two trusted headers: one may be the sender's forgery
        (
            [
                "mx.test; spf=fail smtp.mailfrom=example.org",
                "mx.test; spf=pass smtp.mailfrom=example.org; dkim=pass header.d=example.org",
            ],
            (False, False),
        ),
        # an encoded word is not the authserv-id
        (["=?utf-8?q?mx.test?=; spf=pass smtp.mailfrom=example.org"], (False, False)),
        # header.d must be a domain
        (["mx.test; dkim=pass header.d=alice@example.org"], (False, False)),
        # a public suffix is nobody's organizational domain: aligned with nothing
        (["mx.test; spf=pass smtp.mailfrom=bounce@org; dkim=pass header.d=org"], (False, False)),
        # a sibling under the same organizational domain is aligned (relaxed)
        (
            ["mx.test; spf=pass smtp.mailfrom=news.example.org; dkim=pass header.d=a.example.org"],
            (True, True),
        ),
        # a longer name that only ends like the From domain is someone else's
        (
            ["mx.test; spf=pass smtp.mailfrom=evilexample.org; dkim=pass header.d=evilexample.org"],
            (False, False),
        ),
        (["mx.test; none"], (False, False)),
        ([], (False, False)),
    ],
)
def test_authentication_results(headers: list[str], expected: tuple[bool, bool]) -> None:
    message = _mail(*[("Authentication-Results", h) for h in headers], ("From", ALICE))
    assert auth.verify(message, ALICE, ["mx.test"]) == expected


@pytest.mark.parametrize(
    ("signer", "sender", "expected"),
    [
        ("example.com", "example.com", True),
        ("mail.example.com", "example.com", True),  # relaxed: a subdomain either way
        ("example.com", "mail.example.com", True),
        ("com", "example.com", False),  # a public suffix aligns with nothing
        ("example.com", "com", False),
        ("co.uk", "example.co.uk", False),
        ("example.co.uk", "co.uk", False),
        ("mail.example.co.uk", "example.co.uk", True),
        ("other.co.uk", "example.co.uk", False),  # two organizations under one suffix
        ("github.io", "alice.github.io", False),  # the list's private part counts too
        ("bob.github.io", "alice.github.io", False),
        ("xn--bcher-kva.example", "mail.xn--bcher-kva.example", True),  # IDNA names
        ("", "example.com", False),
    ],
)
def test_alignment_is_an_exact_organizational_domain_match(
    signer: str, sender: str, expected: bool
) -> None:
    assert auth.aligned(signer, sender) is expected
    headers = [f"mx.test; spf=pass smtp.mailfrom={signer}; dkim=pass header.d={signer}"]
    address = f"alice@{sender}"
    message = _mail(*[("Authentication-Results", h) for h in headers], ("From", address))
    assert auth.verify(message, address, ["mx.test"]) == (expected, expected)


def test_authentication_needs_exactly_one_from_address() -> None:
    header = ("Authentication-Results", "mx.test; spf=pass smtp.mailfrom=example.org")
    two = _mail(header, ("From", f"{ALICE}, bob@example.org"))
    assert auth.verify(two, ALICE, ["mx.test"]) == (False, False)
    assert auth.verify(_mail(header, ("From", ALICE)), ALICE, []) == (False, False)


def test_screening_order_and_reasons() -> None:
    cfg = EmailConfig(allow_from=[ALICE], trusted_authserv_ids=["mx.test"])
    ok = b"Authentication-Results: mx.test; spf=pass smtp.mailfrom=example.org; dkim=pass "
    ok += b"header.d=example.org\r\n"

    def check(raw: bytes) -> str:
        own = frozenset({"bot@example.org"})
        return screen(cfg, raw, own_addresses=own, is_allowed=lambda s: s == ALICE).skip

    assert check(ok + b"From: Alice <ALICE@example.org>\r\n\r\n") == ""
    assert "own address" in check(ok + b"From: bot@example.org\r\n\r\n")
    assert "automatic" in check(
        ok + b"From: alice@example.org\r\nAuto-Submitted: auto-replied\r\n\r\n"
    )
    assert "SPF" in check(b"From: alice@example.org\r\n\r\n")
    assert "allowFrom" in check(
        b"Authentication-Results: mx.test; spf=pass smtp.mailfrom="
        b"other.org; dkim=pass header.d=other.org\r\nFrom: eve@other.org\r\n\r\n"
    )
    assert "From" in check(b"Subject: none\r\n\r\n")


# -- reading -------------------------------------------------------------------------------
def test_html_to_text_is_plain_and_safe() -> None:
    html = (
        "<html><head><title>T</title><style>.x{}</style><script>alert(1)</script></head>"
        "<body><h1>Hi</h1><p>Read <a href='https://example.org/a'>this</a> and "
        "<a href='javascript:evil()'>that</a>.</p><ul><li>one</li><li>two</li></ul>"
        "a<br>b<!-- hidden --><img src='http://tracker.test/pixel.gif'></body></html>"
    )
    assert html_to_text(html) == (
        "Hi\n\nRead this (https://example.org/a) and that.\n\n- one\n- two\n\na\nb"
    )
    assert html_to_text("") == "" and html_to_text("no tags") == "no tags"


@pytest.mark.parametrize(
    ("text", "new"),
    [
        ("Allow\n\nOn Mon, 1 May 2026, Bot <bot@example.org> wrote:\n> Allow the tool?", "Allow"),
        (
            "allow chat\n\nOn Mon, 1 May 2026 at 10:00, Nanobot <\nbot@example.org> wrote:\n> q",
            "allow chat",
        ),
        ("deny\n-- \nAlice, sent from my phone", "deny"),
        ("yes\n\n-----Original Message-----\nFrom: bot", "yes"),
        ("Am 1. Mai 2026 schrieb Bot:\n> alt", ""),
        ("Hi\n\nCan you list these:", "Hi\n\nCan you list these:"),
    ],
)
def test_reply_part_drops_quotes_and_signatures(text: str, new: str) -> None:
    assert reply_part(text) == new


def test_senders_threads_and_keys() -> None:
    assert sender_address(_mail(("From", '"Alice, A." <Alice@Example.ORG>'))) == ALICE
    assert sender_address(_mail(("From", "a@x.org, b@x.org"))) == ""
    assert sender_address(_mail(("From", "no address"))) == ""
    assert sender_address(_mail(("From", "a@x.org"), ("From", "b@x.org"))) == ""
    refs = " ".join(f"<r{i}@x>" for i in range(30))
    message = _mail(("Message-ID", "<m@x>"), ("References", refs), ("In-Reply-To", "<r29@x>"))
    chain = thread_references(message)
    assert chain[-1] == "<m@x>" and chain[-2] == "<r29@x>" and len(chain) == 20
    assert thread_references(_mail(("Message-ID", "<m@x>"), ("In-Reply-To", "<p@x>"))) == [
        "<p@x>",
        "<m@x>",
    ]
    assert dedupe_key(message, b"raw") == "<m@x>"
    assert dedupe_key(_mail(("From", ALICE)), b"raw").startswith("sha256:")
    assert is_auto_submitted(_mail(("Precedence", "bulk")))
    assert not is_auto_submitted(_mail(("Auto-Submitted", "no")))
    assert safe_filename("../../etc/passwd") == "passwd"
    assert safe_filename("..\\.bashrc") == "bashrc" and safe_filename("///") == "attachment"


def test_a_slash_command_by_mail_is_the_command(tmp_path: Path) -> None:
    cfg = EmailConfig()
    raw = b"From: alice@example.org\r\nSubject: Re: hi\r\n\r\n/new\r\n\r\nOn Mon, Bot wrote:\r\n> x"
    assert read(cfg, raw, uid=1, uidvalidity=1, media_dir=tmp_path).content == "/new"
    long_mail = b"From: alice@example.org\r\nSubject: s\r\n\r\n" + b"x" * 20_000
    content = read(
        EmailConfig(max_body_chars=100), long_mail, uid=2, uidvalidity=1, media_dir=tmp_path
    ).content
    assert content.endswith("\n\n" + "x" * 100)


# -- writing -------------------------------------------------------------------------------
def test_answers_are_threaded_and_attachments_capped(tmp_path: Path) -> None:
    cfg = EmailConfig(
        from_address="Nanobot <bot@example.org>",
        max_attachment_size=10,
        max_attachments_per_email=1,
    )
    small, big, other = tmp_path / "a.txt", tmp_path / "big.bin", tmp_path / "b.txt"
    small.write_text("tiny")
    big.write_bytes(b"x" * 100)
    other.write_text("two")
    thread = Thread("Re: Lunch", "<m2@x>", ["<m1@x>", "<m2@x>"])
    mail = compose(
        cfg, ALICE, "Sure.", thread=thread, attachments=[small, big, other, tmp_path / "missing"]
    )
    assert mail["Subject"] == "Re: Lunch", "no Re: Re:"
    assert (mail["In-Reply-To"], mail["References"]) == ("<m2@x>", "<m1@x> <m2@x>")
    assert mail["Message-ID"].endswith("@example.org>")
    body = present(mail.get_body(("plain",))).get_content()
    assert "[attachment: big.bin - too large]" in body
    assert "[attachment: b.txt - too many attachments]" in body
    assert "[attachment: missing - send failed]" in body
    assert [p.get_filename() for p in mail.iter_attachments()] == ["a.txt"]
    fresh = compose(cfg, ALICE, "Hello", thread=None, automatic=False)
    assert fresh["Subject"] == "Message from nanobot" and fresh["In-Reply-To"] is None
    assert fresh["Auto-Submitted"] == "auto-generated"
    override = compose(cfg, ALICE, "x", thread=thread, subject="Weekly report")
    assert override["Subject"] == "Weekly report"


@pytest.mark.filterwarnings("ignore:Requiring AUTH while not requiring TLS:UserWarning")
async def test_what_is_mailed_and_what_is_not(tmp_path: Path) -> None:
    """Interim progress never; with autoReplyEnabled off no answers, but reminders, first
    contact and approval questions still; the thread of a chat survives a restart."""
    from desktop.core.agent.approval import ApprovalRequest
    from desktop.core.bus.events import OutboundMessage
    from desktop.core.bus.queue import MessageBus
    from desktop.core.channels.base import ChannelUnavailable
    from desktop.core.channels.email.channel import EmailChannel
    from desktop.core.channels.state import ChannelStateStore
    from tests.channels.email.servers import BOT, SMTP_PASSWORD, SmtpServer

    server = SmtpServer().start()
    cfg = EmailConfig(
        consent_granted=True,
        smtp_host="127.0.0.1",
        smtp_port=server.port,
        smtp_username=BOT,
        smtp_password=SMTP_PASSWORD,
        smtp_use_tls=False,
        auto_reply_enabled=False,
    )
    state = ChannelStateStore(tmp_path / "email.json")
    state.update(threads={ALICE: Thread("Lunch", "<m1@x>", ["<m1@x>"]).to_json()})
    channel = EmailChannel(cfg, MessageBus(), ChannelStateStore(state.path), tmp_path)
    try:
        await channel.send(OutboundMessage("email", ALICE, "thinking", metadata={"progress": True}))
        await channel.send(OutboundMessage("email", ALICE, "an answer"))
        await channel.send(OutboundMessage("email", ALICE, "Stretch!", metadata={"reminder": True}))
        await channel.send(OutboundMessage("email", "bob@example.org", "hello Bob"))
        request = ApprovalRequest(
            "email:" + ALICE,
            "c1",
            "exec",
            {"command": "ls"},
            "runs a shell command",
            "email",
            ALICE,
        )
        await channel.approvals.ask(request)
        with pytest.raises(ValueError, match="not an email address"):
            await channel.send(OutboundMessage("email", "nobody", "x"))
        channel.config.consent_granted = False
        with pytest.raises(ChannelUnavailable):
            await channel.send(OutboundMessage("email", ALICE, "x", metadata={"reminder": True}))
    finally:
        await channel.stop()
        server.stop()
    sent = [(m["To"], m.get_content().strip().splitlines()[0]) for m in server.messages()]
    assert sent == [
        (ALICE, "Stretch!"),
        ("bob@example.org", "hello Bob"),
        (ALICE, "Allow the tool exec? It runs a shell command."),
    ]
    reminder = server.messages()[0]
    assert reminder["In-Reply-To"] == "<m1@x>" and reminder["Subject"] == "Re: Lunch"

"""NO_CONTENT: a draft that is only a preamble or filler ("Sure! Here are the steps:") with
no answer after it, as a model writes when it stops right after its opener.

A draft has content when anything is left once its sentences of courtesy ("Sure!", "Great
question.") and of promise ("Let me explain.", "Here is what you need:") are set aside: a
word of an answer, a code span, a link or a mention. A short draft that ends on a colon
promises what never comes, in any language.
"""

from __future__ import annotations

import re

from app.verify.scan import MASK, Layout

SHORT = 300  # characters: a longer draft that ends on a colon is an answer, cut or not
LONG = 1500  # characters: more than any preamble; such a draft has content
_SENTENCES = re.compile(r"[^.!?。！？:：;\n…]+[.!?。！？:：;…]*")
_COLON_END = re.compile(r"[:：]\s*$")

# Courtesy that can open any answer: it answers nothing. ("Yes", "No", "OK" answer questions.)
_COURTESY = (
    r"sure(?: thing)?|absolutely|certainly|of course|definitely|happy to help|glad to help|"
    r"(?:a )?(?:great|good|excellent) question|no problem|great|perfect|got it|"
    r"thanks(?: for asking)?|thank you(?: for asking)?|"
    r"i(?:'d| would|'m| am) (?:be )?(?:happy|glad) to help(?: you)?(?: with (?:that|this))?|"
    r"klar|gerne|natürlich|sicher|gute frage|kein problem|"
    r"bien sûr|absolument|certainement|avec plaisir|bonne question|volontiers|"
    r"claro|por supuesto|con gusto|buena pregunta|desde luego|com certeza|boa pergunta|"
    r"certo|certamente|volentieri|ottima domanda|buona domanda|"
    r"natuurlijk|zeker|goede vraag|oczywiście|jasne|dobre pytanie|"
    r"självklart|absolut|visst|tabii|tabii ki|elbette|конечно|разумеется|хороший вопрос|"
    r"もちろん(?:です)?|承知しました|かしこまりました|いい質問(?:です)?(?:ね)?|"
    r"当然|好的|没问题|好问题|물론(?:입니다|이죠)?|좋은 질문(?:입니다|이에요)?"
)
# Promises of an answer to come.
_PROMISE = (
    r"(?:here(?:'s| is| are)|below (?:is|are)|the following|as follows|"
    r"let me|let's|allow me to|i(?:'ll| will| can) (?:explain|walk|show|break|go|outline|help)|"
    r"step[- ]by[- ]step|"
    r"hier (?:ist|sind)|im folgenden|folgende|ich erkläre|ich zeige|lass mich|"
    r"voici|voilà|ci-dessous|je vous explique|je t'explique|laissez-moi|"
    r"les étapes suivantes|"
    r"aquí (?:tienes|está|están|va|van)|a continuación|te explico|le explico|déjame|"
    r"aqui (?:está|estão|vai)|a seguir|vou (?:te |lhe )?explicar|deixe-me|"
    r"ecco|di seguito|ti spiego|lascia(?:mi)? che|"
    r"hier (?:is|zijn)|hieronder|ik leg|oto|poniżej|wyjaśnię|"
    r"här är|nedan|jag förklarar|işte|aşağıda|açıklayayım|вот|ниже|объясню|давайте|"
    r"以下|下記|次の|説明します|示します|ご説明|下面|如下|我来|请看|다음은|아래|설명(?:해)?드리)"
)
_COURTESY_RUN = re.compile(rf"\W*(?:(?:{_COURTESY})\b\W*)*", re.IGNORECASE)
# A promise and a few words more ("Here is what you need to know"), not a sentence that
# goes on to answer ("Here are the four metrics: …" is cut at its colon anyway).
_PROMISE_SENTENCE = re.compile(rf"(?:{_PROMISE})\S*(?:\s+\S+){{0,12}}\s*", re.IGNORECASE)
# A promise at the end of a short sentence: "There are a few things to consider, so let me
# go through them one by one."
_LATE_PROMISE = re.compile(
    r"\b(?:let me|i(?:'ll| will)) (?:explain|walk you through|go through|break (?:it|this) "
    r"down|show you)\b",
    re.IGNORECASE,
)
LATE_PROMISE_WORDS = 20
# Not an answer either: headings (a title line) and emoji.
_TITLE_LINE = re.compile(r"^[ \t]*(?:#{1,6}[ \t]+[^\n]*|\*{1,2}[^*\n]{1,60}\*{1,2}[ \t]*)$", re.M)
_EMOJI = re.compile(r":[a-z0-9_+-]+:|[\U0001f300-\U0001faff\u2600-\u27bf\ufe0f]")


def no_content(layout: Layout) -> bool:
    """Whether the draft is only courtesy and promises of an answer that never comes."""
    if MASK in layout.masked or len(layout.masked) > LONG:  # code, a link, a mention, or a lot
        return False
    untitled = _TITLE_LINE.sub("", layout.masked)
    prose = _EMOJI.sub(" ", untitled if untitled.strip() else layout.masked)
    sentences = [s.strip() for s in _SENTENCES.findall(prose) if s.strip(" \t\n:：")]
    if len(prose) <= SHORT and _COLON_END.search(prose) and len(sentences) <= 2:
        return True
    kinds = [_kind(sentence) for sentence in sentences]
    return bool(kinds) and None not in kinds and "promise" in kinds


def _kind(sentence: str) -> str | None:
    """ "courtesy", "promise", or None for a sentence that says something."""
    opener = _COURTESY_RUN.match(sentence)
    rest = sentence[opener.end() :] if opener else sentence
    if not rest.strip(" \t\n.!?。！？:：;…—–-"):
        return "courtesy"
    if _PROMISE_SENTENCE.fullmatch(_trim(rest)):
        return "promise"
    short = len(rest.split()) <= LATE_PROMISE_WORDS
    return "promise" if short and _LATE_PROMISE.search(rest) else None


def _trim(text: str) -> str:
    return text.strip(" \t\n.!?。！？:：;…—–-")

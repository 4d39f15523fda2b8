"""Hand-made movie reviews shared by the tests (the embedded corpus is law text, not reviews)."""

MOVIE_REVIEWS = (
    "아이언맨은 올해 최고의 영화!",
    "영화 정말 재밌다 ㅋㅋ",
    "스파이더맨 봤는데 쩔어 ㅠㅠ",
    "영화 진짜 재밌어요 최고",
    "정말 최고의 영화 또 보고 싶다",
    "이 영화 진짜 별로였어요",
)

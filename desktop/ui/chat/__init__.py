"""The Chat tab: chat list, virtualised conversation view, composer, tool approval.

Import :class:`desktop.ui.chat.chat_tab.ChatTab` (kept out of this module so importing a
sub-module stays cheap).
"""

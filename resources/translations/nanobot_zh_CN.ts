<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
    <context>
        <name />
        <message>
            <source>System default</source>
            <translation>跟随系统</translation>
        </message>
        <message>
            <source>Summary (lines added and removed)</source>
            <translation>摘要（增加和删除的行数）</translation>
        </message>
        <message>
            <source>Inline diff</source>
            <translation>内联差异</translation>
        </message>
        <message>
            <source>Collapsed (open the card to see it)</source>
            <translation>折叠（打开卡片查看）</translation>
        </message>
        <message>
            <source>Follow the system</source>
            <translation>跟随系统</translation>
        </message>
        <message>
            <source>Light</source>
            <translation>浅色</translation>
        </message>
        <message>
            <source>Dark</source>
            <translation>深色</translation>
        </message>
        <message>
            <source>Appearance &amp; startup</source>
            <translation>外观与启动</translation>
        </message>
        <message>
            <source>How the window looks and behaves. These settings belong to this app and are kept in desktop.json.</source>
            <translation>窗口的外观和行为。这些设置属于本应用，保存在 desktop.json 中。</translation>
        </message>
        <message>
            <source>Theme</source>
            <translation>主题</translation>
        </message>
        <message>
            <source>Theme: {choice}</source>
            <translation>主题：{choice}</translation>
        </message>
        <message>
            <source>Language</source>
            <translation>语言</translation>
        </message>
        <message>
            <source>The window shows the new language from the next start.</source>
            <translation>新语言将在下次启动时生效。</translation>
        </message>
        <message>
            <source>Chat</source>
            <translation>聊天</translation>
        </message>
        <message>
            <source>Show file changes as:</source>
            <translation>文件改动显示为：</translation>
        </message>
        <message>
            <source>Show file changes as: {choice}</source>
            <translation>文件改动显示为：{choice}</translation>
        </message>
        <message>
            <source>Window</source>
            <translation>窗口</translation>
        </message>
        <message>
            <source>Closing the window keeps nanobot running in the system tray</source>
            <translation>关闭窗口后 nanobot 继续在系统托盘中运行</translation>
        </message>
        <message>
            <source>Close to tray</source>
            <translation>关闭到托盘</translation>
        </message>
        <message>
            <source>Only where a system tray exists; otherwise closing the window quits.</source>
            <translation>仅在有系统托盘时有效；否则关闭窗口即退出。</translation>
        </message>
        <message>
            <source>Start nanobot Desktop when I log in</source>
            <translation>登录时启动 nanobot Desktop</translation>
        </message>
        <message>
            <source>Start at login</source>
            <translation>登录时启动</translation>
        </message>
        <message>
            <source>Adds {path} (removed again when unticked).</source>
            <translation>将添加 {path}（取消勾选时删除）。</translation>
        </message>
        <message>
            <source>Start at login: cannot change {path} ({error}). Nothing was saved.</source>
            <translation>登录时启动：无法更改 {path}（{error}）。未保存任何内容。</translation>
        </message>
        <message>
            <source>Not saved: {error}</source>
            <translation>未保存：{error}</translation>
        </message>
        <message>
            <source>Saved. The new language shows from the next start.</source>
            <translation>已保存。新语言将在下次启动时生效。</translation>
        </message>
        <message>
            <source>Saved.</source>
            <translation>已保存。</translation>
        </message>
        <message>
            <source>Not saved: the config file has an error ({error}). Fix the file (it was not changed), then save again.</source>
            <translation>未保存：配置文件有错误（{error}）。请修正该文件（它未被更改），然后再次保存。</translation>
        </message>
        <message>
            <source>Not saved: cannot write the config file ({error}).</source>
            <translation>未保存：无法写入配置文件（{error}）。</translation>
        </message>
        <message>
            <source>{page} settings</source>
            <translation>{page}设置</translation>
        </message>
        <message>
            <source>{page} status</source>
            <translation>{page}状态</translation>
        </message>
        <message>
            <source>Revert</source>
            <translation>还原</translation>
        </message>
        <message>
            <source>Revert {page} settings</source>
            <translation>还原{page}设置</translation>
        </message>
        <message>
            <source>Show the saved values again</source>
            <translation>重新显示已保存的值</translation>
        </message>
        <message>
            <source>Save</source>
            <translation>保存</translation>
        </message>
        <message>
            <source>Save {page} settings</source>
            <translation>保存{page}设置</translation>
        </message>
        <message>
            <source>Save these settings (Ctrl+S)</source>
            <translation>保存这些设置（Ctrl+S）</translation>
        </message>
        <message>
            <source>{field}: {reason}. Nothing was saved.</source>
            <translation>{field}：{reason}。未保存任何内容。</translation>
        </message>
        <message>
            <source>Saved, but: {problem}</source>
            <translation>已保存，但是：{problem}</translation>
        </message>
    </context>
</TS>
